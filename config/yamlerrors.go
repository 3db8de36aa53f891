package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The YAML library's errors carry their line, and what they are about,
// only in their text; these read them back.
var (
	yamlLine     = regexp.MustCompile(`^(?:yaml: )?line ([0-9]+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	// The value or collection an error is about, to find its node on a
	// busy line.
	badValue = regexp.MustCompile(`^(?:invalid duration ("(?:[^"\\]|\\.)*")|cannot unmarshal !!\w+ ` + "`([^`]*)`)")
	badTag   = regexp.MustCompile(`^(?:cannot unmarshal|invalid duration: got) (!!map|!!seq)`)
)

// parserProblems are the YAML parser's (not scanner's) messages. The
// library prints their line 0-based (it is the line of the construct the
// parser was in, e.g. the mapping holding a badly indented key), while
// the scanner's are 1-based; they get one added.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// decodeErrors turns the YAML library's errors, which carry the line only
// inside their text, into *Error values with the line, and the path when
// the node tree is known. The library's "field x not found in type
// config.Tool" becomes `unknown field "x"`.
func decodeErrors(name string, doc *yaml.Node, err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var errs []error
	for _, msg := range msgs {
		e := &Error{File: name, Reason: strings.TrimPrefix(msg, "yaml: ")}
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Reason = m[2]
			if parserProblems[e.Reason] {
				e.Line++
			}
		}
		var h hint
		if m := unknownField.FindStringSubmatch(e.Reason); m != nil {
			h.field = m[1]
			e.Reason = fmt.Sprintf("unknown field %q", h.field)
		} else if m := badValue.FindStringSubmatch(e.Reason); m != nil {
			h.value = m[2]
			if m[1] != "" {
				h.value, _ = strconv.Unquote(m[1])
			}
		} else if m := badTag.FindStringSubmatch(e.Reason); m != nil {
			h.tag = m[1]
		}
		if doc != nil && e.Line > 0 {
			e.Path = pathAtLine(doc, e.Line, h).String()
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// typeError is a problem of node n as the YAML library reports one (a
// *yaml.TypeError naming its line), so the decoder goes on and every
// problem of the file is reported together.
func typeError(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}}
}
