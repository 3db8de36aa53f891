package console

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"
)

// templateFuncs are the helpers the templates use.
var templateFuncs = template.FuncMap{
	"indentJSON":  func(raw json.RawMessage) string { return indentJSON(raw) },
	"compactJSON": func(raw json.RawMessage, n int) string { return clip(compactJSON(raw), n) },
	"join":        strings.Join,
	"clip":        clip,
	"add":         func(a, b int) int { return a + b },
	"domID":       domID,
	"jsonBlock":   func(raw json.RawMessage) shownValue { return shown(indentJSON(raw)) },
	"textBlock":   shown,
	"argsBlock":   func(args string) shownValue { return shown(indentJSON(json.RawMessage(args))) },
	"timeOfDay":   func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
	"clock":       clock,
	"stamp":       func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
	"nodeRef":     func(base, id string) nodeRef { return nodeRef{Base: base, ID: id} },
	"took":        func(d time.Duration) string { return d.Round(time.Millisecond).String() },
}

// shownWidth is how much of a large value a panel shows before "show
// all".
const shownWidth = 2000

// shownValue is a value on the page: Head is what is shown at once; when
// Cut, All is the whole value (Size runes), behind "show all".
type shownValue struct {
	Head, All string
	Cut       bool
	Size      int
}

func shown(s string) shownValue {
	r := []rune(s)
	if len(r) <= shownWidth {
		return shownValue{Head: s, All: s, Size: len(r)}
	}
	return shownValue{Head: string(r[:shownWidth]) + "…", All: s, Cut: true, Size: len(r)}
}

// clock is a time of day to the millisecond, in UTC (the times the
// trace records).
func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// domID makes s (a workflow id, any characters) safe inside an element id
// that htmx looks up as a CSS selector: letters, digits and '-' stay,
// anything else becomes _XX per byte, so distinct ids stay distinct.
func domID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '-' || ('0' <= ch && ch <= '9') || ('a' <= ch && ch <= 'z') || ('A' <= ch && ch <= 'Z') {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "_%02x", ch)
		}
	}
	return b.String()
}
