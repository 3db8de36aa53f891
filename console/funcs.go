package console

import (
	"encoding/json"
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
}
