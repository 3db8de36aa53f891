package repair

import (
	"sort"
	"strings"
)

// A schema's keywords for one location can be spread over several schema
// objects: the one at the location, what its $ref points to, the members
// of its allOf. nodes gathers them in document order, so a strategy can
// ask for "the default" or "the type" without knowing how the schema was
// factored. anyOf and oneOf are not followed: which branch applies is a
// judgement.
type nodes []map[string]any

// Bounds on gathering, for any schema (even a cyclic $ref).
const (
	maxSchemaNodes = 32
	maxSchemaHops  = 16
)

// schemaDoc is a normalized schema document (JSON values, json.Number).
type schemaDoc struct {
	root map[string]any
}

// expand gathers s and what its $ref and allOf bring in.
func (d schemaDoc) expand(s any) nodes {
	var out nodes
	var visit func(s any, hops int)
	visit = func(s any, hops int) {
		if len(out) >= maxSchemaNodes || hops > maxSchemaHops {
			return
		}
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		out = append(out, m)
		if ref, ok := m["$ref"].(string); ok {
			if t, ok := d.resolve(ref); ok {
				visit(t, hops+1)
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, a := range all {
				visit(a, hops+1)
			}
		}
	}
	visit(s, 0)
	return out
}

// resolve follows a $ref inside the document ("#", "#/$defs/x"); any
// other reference was already refused by config.CompileSchema.
func (d schemaDoc) resolve(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	var v any = d.root
	if frag == "" {
		return v, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false // anchors are not followed
	}
	for _, step := range strings.Split(frag[1:], "/") {
		step = strings.NewReplacer("~1", "/", "~0", "~").Replace(step)
		switch c := v.(type) {
		case map[string]any:
			v, ok = c[step]
		case []any:
			var i int
			i, ok = index(step, len(c))
			if ok {
				v = c[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return v, true
}

// at gathers the schema objects that apply at an argument location.
func (d schemaDoc) at(steps []string) nodes {
	ns := d.expand(d.root)
	for _, s := range steps {
		if len(ns) == 0 {
			return nil
		}
		ns = d.step(ns, s)
	}
	return ns
}

// step goes from the schemas of a container to those of one member:
// properties (or else additionalProperties) for objects, prefixItems or
// items (either draft's form) for arrays. Both are tried, since a step
// like "0" may be an object key or an array index.
func (d schemaDoc) step(ns nodes, s string) nodes {
	var out nodes
	add := func(v any) {
		for _, n := range d.expand(v) {
			if len(out) < maxSchemaNodes {
				out = append(out, n)
			}
		}
	}
	found := false
	for _, n := range ns {
		if props, ok := n["properties"].(map[string]any); ok {
			if p, ok := props[s]; ok {
				add(p)
				found = true
			}
		}
	}
	if found {
		return out
	}
	for _, n := range ns {
		if ap, ok := n["additionalProperties"].(map[string]any); ok {
			add(ap)
		}
	}
	if i, ok := index(s, 1<<30); ok {
		for _, n := range ns {
			if pre, ok := n["prefixItems"].([]any); ok && i < len(pre) {
				add(pre[i])
				continue
			}
			switch items := n["items"].(type) {
			case map[string]any:
				add(items)
			case []any: // draft 7 tuple form
				if i < len(items) {
					add(items[i])
				} else if ai, ok := n["additionalItems"].(map[string]any); ok {
					add(ai)
				}
			}
		}
	}
	return out
}

// first is the first value of a keyword among the nodes.
func (ns nodes) first(key string) (any, bool) {
	for _, n := range ns {
		if v, ok := n[key]; ok {
			return v, true
		}
	}
	return nil, false
}

// types is the union of the nodes' "type" keywords ("" when none).
func (ns nodes) types() []string {
	var out []string
	for _, n := range ns {
		switch t := n["type"].(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// integer reports whether the location holds integers only: it says
// "integer" and not "number".
func (ns nodes) integer() bool {
	ts := ns.types()
	return contains(ts, "integer") && !contains(ts, "number")
}

// declared is the sorted set of property names the nodes declare.
func (ns nodes) declared() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range ns {
		props, _ := n["properties"].(map[string]any)
		for k := range props {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
