package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// path is a place inside the config, kept as steps (string keys and int
// indexes) rather than as text so that it can be both printed for the
// user and looked up in the YAML node tree to find its line.
type path []any

// key is the path to field k below p. It never shares p's backing array,
// so sibling paths built from one parent stay independent.
func (p path) key(k string) path { return append(p[:len(p):len(p)], k) }

// idx is the path to item i below p.
func (p path) idx(i int) path { return append(p[:len(p):len(p)], i) }

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// String prints the path as agents[0].graph.nodes.A; a key that is not a
// plain name is quoted (nodes["my node"]) so the path stays unambiguous.
func (p path) String() string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			switch {
			case !plainKey.MatchString(s):
				fmt.Fprintf(&b, "[%q]", s)
			case b.Len() > 0:
				b.WriteString("." + s)
			default:
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// find walks p in the node tree. It answers the deepest node reached, the
// line that best points at it (the key's line for a mapping entry, so an
// error about "tools[0].http" points at "http:"), and whether the whole
// path exists. A missing field thus points at its parent.
func find(doc *yaml.Node, p path) (n *yaml.Node, line int, exact bool) {
	if doc == nil {
		return nil, 0, false
	}
	n = deref(doc)
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, 0, len(p) == 0
		}
		n = deref(n.Content[0])
	}
	for _, s := range p {
		next, l := child(n, s)
		if next == nil {
			return n, line, false
		}
		n, line = next, l
	}
	return n, line, true
}

// child is one step of find. A string step also indexes a sequence, since
// JSON Schema error locations name array items as "0", "1", ...
func child(n *yaml.Node, s any) (*yaml.Node, int) {
	switch n.Kind {
	case yaml.MappingNode:
		k, ok := s.(string)
		if !ok {
			return nil, 0
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return deref(n.Content[i+1]), n.Content[i].Line
			}
		}
	case yaml.SequenceNode:
		i, ok := s.(int)
		if str, isStr := s.(string); isStr {
			v, err := strconv.Atoi(str)
			i, ok = v, err == nil
		}
		if ok && i >= 0 && i < len(n.Content) {
			return deref(n.Content[i]), n.Content[i].Line
		}
	}
	return nil, 0
}

// deref follows aliases (*anchor) to the node they stand for; the guard
// bounds pathological alias chains.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// lineOf is the line to report for p: its own when it exists, its
// nearest existing parent's otherwise, 0 without a node tree.
func lineOf(doc *yaml.Node, p path) int {
	_, line, _ := find(doc, p)
	return line
}

// written reports whether the file sets p to a non-null value. Defaults
// use it so that an explicit 0 (max_attempts: 0 is Temporal's
// "unlimited") is kept, or refused, instead of silently replaced.
func written(doc *yaml.Node, p path) bool {
	n, _, exact := find(doc, p)
	return exact && n != nil && !(n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// walk visits every node below n with its path, keys included (a key is
// visited with the path of its entry). Aliases are not followed, so each
// node of the file is visited once.
func walk(n *yaml.Node, p path, visit func(p path, n *yaml.Node)) {
	if n == nil {
		return
	}
	visit(p, n)
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walk(c, p, visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walk(c, p.idx(i), visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			visit(p.key(k.Value), k)
			walk(n.Content[i+1], p.key(k.Value), visit)
		}
	}
}

// hint is what a decoder error says about the node it is about.
type hint struct {
	field string // an unknown field's name
	value string // a bad scalar's text
	tag   string // a bad collection's tag, !!map or !!seq
}

// pathAtLine finds the path of the entry on a line, for the decoder's
// errors which only give a line. A line may hold several entries (a flow
// mapping, or a key and the block mapping it starts), so the hint picks:
// the key named field, else the first scalar holding value, else the
// innermost collection of the tag, else the first entry of the line.
func pathAtLine(doc *yaml.Node, line int, h hint) path {
	var first, named, valued, tagged path
	found, foundTag := false, false
	walk(doc, nil, func(p path, n *yaml.Node) {
		if n.Line != line {
			return
		}
		if !found {
			first, found = p, true
		}
		if h.field != "" && named == nil && n.Value == h.field && len(p) > 0 && p[len(p)-1] == h.field {
			named = p
		}
		if h.value != "" && valued == nil && n.Kind == yaml.ScalarNode && n.Value == h.value {
			valued = p
		}
		if h.tag != "" && n.Kind != yaml.ScalarNode && n.ShortTag() == h.tag && (!foundTag || len(p) > len(tagged)) {
			tagged, foundTag = p, true
		}
	})
	switch {
	case named != nil:
		return named
	case valued != nil:
		return valued
	case foundTag:
		return tagged
	}
	return first
}
