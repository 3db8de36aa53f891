package config

import (
	"errors"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// english prints the schema library's messages (it needs a printer).
var english = message.NewPrinter(language.English)

// Violation is one way a value fails a schema: where in the value (a JSON
// Pointer), the kind of failure (for repair strategies to pick from) and
// a message a model can act on.
type Violation struct {
	At      string
	Kind    jsonschema.ErrorKind
	Message string
}

func (v Violation) String() string { return "at " + v.At + ": " + v.Message }

// Violations flattens a validation error into its leaf failures, sorted by
// location then message, so the same failure always reads the same way.
func Violations(err error) []Violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		if err == nil {
			return nil
		}
		return []Violation{{At: "/", Message: err.Error()}}
	}
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			// The library lists forbidden properties in map order; sort
			// them so the message is the same on every replay.
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
				sort.Strings(ap.Properties)
			}
			out = append(out, Violation{
				At:      pointerOf(e.InstanceLocation),
				Kind:    e.ErrorKind,
				Message: e.ErrorKind.LocalizedString(english),
			})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// DescribeViolations is the one-line text of a validation error.
func DescribeViolations(err error) string {
	vs := Violations(err)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// pointerOf writes a location as a JSON Pointer, escaping "~" and "/" in
// keys so every location reads one way.
func pointerOf(tokens []string) string {
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(esc.Replace(t))
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
