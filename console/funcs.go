package console

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
)

// templateFuncs are the helpers the templates use.
var templateFuncs = template.FuncMap{
	"indentJSON":  func(raw json.RawMessage) string { return indentJSON(raw) },
	"compactJSON": func(raw json.RawMessage, n int) string { return clip(compactJSON(raw), n) },
	"join":        strings.Join,
	"clip":        clip,
	"add":         func(a, b int) int { return a + b },
	"domID":       domID,
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
