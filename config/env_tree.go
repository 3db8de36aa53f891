package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// expandTree resolves the masked variable references of the parsed
// document in place: in scalar values to the environment's values, in
// keys back to the text as written (a key is never expanded). A variable's
// value thus stays inside its scalar, whatever YAML syntax it holds: it
// cannot add a key, an item, a tool or an agent. A reference in a comment
// is not in the tree, so an unset one there is no error.
//
// A plain (unquoted) scalar that held a reference loses its resolved tag,
// so that the decoder resolves the expanded text again: "max_attempts:
// ${N}" is still an int and "timeout: ${T:-10s}" a duration. A quoted or
// block scalar stays a string.
//
// Tool, MCP server and webhook header values are checked but left as written: the tool activity
// expands them when it sends a call, so the secrets they name never enter
// a run's state. Their variables must be set all the same, as the worker
// will need them for every call.
func expandTree(file string, doc *yaml.Node, m *envMask, getenv func(string) (string, bool)) []error {
	if m == nil {
		return nil
	}
	var errs []error
	walkScalars(doc, nil, false, func(p path, n *yaml.Node, key bool) {
		if key {
			n.Value = m.original(n.Value)
			return
		}
		v, unset := m.expand(n.Value, getenv)
		for _, u := range unset {
			errs = append(errs, unsetError(file, p, refLine(n, u.at), u.name))
		}
		if isHeaderValue(p) {
			n.Value = m.original(n.Value)
			return
		}
		if v == n.Value {
			return
		}
		n.Value = v
		if n.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			n.Tag = ""
		}
	})
	return errs
}

// isHeaderValue reports whether p is tools[i].http.headers.NAME,
// mcp_servers[i].headers.NAME or notify[i].headers.NAME.
func isHeaderValue(p path) bool {
	return (len(p) == 5 && p[0] == "tools" && p[2] == "http" && p[3] == "headers") ||
		(len(p) == 4 && (p[0] == "mcp_servers" || p[0] == "notify") && p[2] == "headers")
}

func unsetError(file string, p path, line int, name string) error {
	return &Error{File: file, Path: p.String(), Line: line,
		Reason: fmt.Sprintf("environment variable %s is not set (write ${%s:-default} to give a default)", name, name)}
}

// refLine is the line of the reference at byte at of n's value. Only a
// literal block (|) keeps its lines in its value; in any other scalar
// line breaks may be folded, so its first line is the best known.
func refLine(n *yaml.Node, at int) int {
	if n.Style&yaml.LiteralStyle != 0 {
		return n.Line + 1 + strings.Count(n.Value[:at], "\n")
	}
	return n.Line
}

// walkScalars visits every scalar below n with its path, telling those
// inside mapping keys (visited with the path of their entry) from values.
// Aliases are not followed, so each scalar of the file is visited, and
// expanded, once.
func walkScalars(n *yaml.Node, p path, key bool, visit func(p path, n *yaml.Node, key bool)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		visit(p, n, key)
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkScalars(c, p, key, visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkScalars(c, p.idx(i), key, visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			// The key first: its text as written names the value's path.
			k := n.Content[i]
			walkScalars(k, p, true, visit)
			walkScalars(n.Content[i+1], p.key(k.Value), key, visit)
		}
	}
}
