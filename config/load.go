package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Options are what loading needs from the rest of the worker.
type Options struct {
	// KnownBuiltin reports whether a built-in tool exists (builtin.Known).
	// Nil refuses every `builtin:` tool, since none could run.
	KnownBuiltin func(name string) bool
	// SlowBuiltin reports whether a built-in tool may run long
	// (builtin.Slow): such a built-in is not local unless marked so. Nil:
	// none is.
	SlowBuiltin func(name string) bool
	// Getenv looks up variables for ${VAR} expansion; nil is os.LookupEnv.
	Getenv func(string) (string, bool)
}

// Load reads, parses, expands, decodes, defaults and validates a config file. Its
// errors name the file, and for a file it could read are *Error values
// (joined), each with the path and line of one problem.
func Load(path string, opts Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data, opts)
}

// Parse is Load over data already read; name is the file name used in
// errors.
func Parse(name string, data []byte, opts Options) (*File, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	// Variables are expanded after parsing, in string values only, so a
	// value can never change the file's structure (see expandTree).
	text, mask := maskEnv(data)
	doc, err := parseNode(name, text)
	if err != nil {
		return nil, err
	}
	if errs := expandTree(name, doc, mask, getenv); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	unknown, err := unknownFields(text, mask)
	if err != nil {
		return nil, decodeErrors(name, doc, err)
	}
	stringTimestamps(doc)
	var f File
	if len(doc.Content) > 0 {
		err = doc.Decode(&f)
	}
	if err := mergeDecodeErrors(unknown, err); err != nil {
		// The rest of the file is checked too, so every problem shows at
		// once, not the first kind only.
		f.setDefaults(doc)
		return nil, withChecks(decodeErrors(name, doc, err), f.validate(name, doc, opts))
	}
	f.setDefaults(doc)
	if err := f.validate(name, doc, opts); err != nil {
		return nil, err
	}
	f.localBuiltins(opts.SlowBuiltin)
	return &f, nil
}

// parseNode parses the text into a node tree, kept for line numbers and
// for telling an explicit zero from a missing field. An empty file is an
// empty document; a second document is refused rather than ignored.
func parseNode(name string, text []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return &yaml.Node{Kind: yaml.DocumentNode}, nil
		}
		return nil, decodeErrors(name, nil, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &Error{File: name, Line: extra.Line, Reason: "a config file holds one YAML document; found another"}
	case err != io.EOF:
		return nil, decodeErrors(name, nil, err)
	}
	return &doc, nil
}

// stringTimestamps makes unquoted dates (2024-01-15) plain strings. In
// parameters, output schemas and graph args they would otherwise become
// time.Time, which JSON writes back as 2024-01-15T00:00:00Z: not what the
// user wrote, and not what a JSON Schema "date" accepts.
func stringTimestamps(doc *yaml.Node) {
	walk(doc, nil, func(_ path, n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
			n.Tag = "!!str"
		}
	})
}

// withChecks joins a file's decode problems and the problems its checks
// found in what did decode, in the order of their lines. A check's
// problem on a line that already has a decode problem is left out: the
// value there did not decode, so what the check says of it is not news.
func withChecks(decoded, checked error) error {
	problems := Problems(decoded)
	lines := map[int]bool{}
	for _, p := range problems {
		lines[p.Line] = true
	}
	for _, p := range Problems(checked) {
		if p.Line == 0 || !lines[p.Line] {
			problems = append(problems, p)
		}
	}
	slices.SortStableFunc(problems, func(a, b *Error) int { return a.Line - b.Line })
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}
