package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// printJSON writes v as indented JSON, a terminal's controls in its
// strings written out as JSON escapes (it reads back the same).
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", termtext.VisibleJSON(string(b)))
	return err
}

// printRawJSON pretty-prints JSON that is already encoded, as is when it
// cannot be parsed (the run's output is not ours to reject); a terminal's
// controls in it are written out either way.
func printRawJSON(w io.Writer, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	var buf bytes.Buffer
	out := ""
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		out = termtext.Visible(string(bytes.TrimSpace(raw)))
	} else {
		out = termtext.VisibleJSON(string(bytes.TrimSpace(buf.Bytes())))
	}
	_, err := fmt.Fprintf(w, "%s\n", out)
	return err
}

// compactJSON is raw on one line, for summaries.
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
