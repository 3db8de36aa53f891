package config

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// errLine reads the line a YAML error message starts with.
var errLine = regexp.MustCompile(`^line ([0-9]+): `)

// unknownFields answers the "field x not found" problems of the file. The
// node tree cannot refuse unknown fields (yaml.Node.Decode has no
// KnownFields), so a strict decode of the text finds them. That text is
// not expanded (variables are expanded in the tree), so its other
// problems, such as "${N}" where an int belongs, are left to the decode
// of the expanded tree. Keys are never expanded, so the masked text has
// the same keys as the tree once the mask is put back in the messages.
// An error that is not a type problem is answered as is.
func unknownFields(text []byte, mask *envMask) ([]string, error) {
	strict := yaml.NewDecoder(bytes.NewReader(text))
	strict.KnownFields(true)
	err := strict.Decode(&File{})
	var te *yaml.TypeError
	switch {
	case err == nil, err == io.EOF:
		return nil, nil
	case !errors.As(err, &te):
		return nil, err
	}
	var unknown []string
	for _, msg := range te.Errors {
		if unknownField.MatchString(errLine.ReplaceAllString(msg, "")) {
			unknown = append(unknown, mask.original(msg))
		}
	}
	return unknown, nil
}

// mergeDecodeErrors reports the unknown fields and the tree decode's
// problems together, in the order of their lines, as one strict decode
// of the expanded file would have. A decode error that is not a type
// problem stops decoding, and is answered alone.
func mergeDecodeErrors(unknown []string, decodeErr error) error {
	var te *yaml.TypeError
	if decodeErr != nil && !errors.As(decodeErr, &te) {
		return decodeErr
	}
	msgs := slices.Clone(unknown)
	if te != nil {
		msgs = append(msgs, te.Errors...)
	}
	if len(msgs) == 0 {
		return nil
	}
	slices.SortStableFunc(msgs, func(a, b string) int { return msgLine(a) - msgLine(b) })
	return &yaml.TypeError{Errors: msgs}
}

// msgLine is the line a YAML error message names, 0 when none.
func msgLine(msg string) int {
	m := errLine.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
