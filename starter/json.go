package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printRawJSON pretty-prints JSON that is already encoded, as is when it
// cannot be parsed (the run's output is not ours to reject).
func printRawJSON(w io.Writer, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		buf.Reset()
		buf.Write(raw)
	}
	_, err := fmt.Fprintf(w, "%s\n", bytes.TrimSpace(buf.Bytes()))
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
