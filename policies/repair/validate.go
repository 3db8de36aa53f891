package repair

import (
	"errors"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/unstuck-dev/unstuck/config"
)

// english prints the schema library's messages (it needs a printer).
var english = message.NewPrinter(language.English)

// issue is one leaf failure of a validation, with its location as steps
// (config.Violation joins them unescaped, which is fine for people but
// not for finding the value again).
type issue struct {
	steps []string
	kind  jsonschema.ErrorKind
	msg   string
}

// check validates v. It answers the leaf failures, sorted by the order
// repairs are tried in (see priority), and the same failures as
// config.Violations for the result.
func check(s *jsonschema.Schema, v any) ([]issue, []config.Violation) {
	err := s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, config.Violations(err)
	}
	var out []issue
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		// The validator lists forbidden properties in map order; sorted,
		// the message (and config.Violations' order) is the same every
		// time, as replay needs.
		if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			sort.Strings(k.Properties)
		}
		if len(e.Causes) == 0 {
			out = append(out, issue{steps: e.InstanceLocation, kind: e.ErrorKind, msg: e.ErrorKind.LocalizedString(english)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	// The validator walks objects in map order: sort, so that the same
	// arguments always get the same repairs.
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := priority(out[i].kind), priority(out[j].kind)
		if pi != pj {
			return pi < pj
		}
		if a, b := pointer(out[i].steps), pointer(out[j].steps); a != b {
			return a < b
		}
		return out[i].msg < out[j].msg
	})
	return out, config.Violations(err)
}

// priority orders the repairs of one round: property names first (a
// renamed property must not also get a default), then a value's type,
// then its form, then its range, then what is added.
func priority(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.AdditionalProperties, *kind.FalseSchema:
		return 0
	case *kind.Type:
		return 1
	case *kind.Format:
		return 2
	case *kind.Enum, *kind.Const:
		return 3
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		return 4
	case *kind.MaxLength:
		return 5
	case *kind.Required:
		return 6
	default:
		return 9
	}
}
