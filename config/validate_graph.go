package config

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// graph checks an agent's explicit graph: its nodes, their tools and
// variable references, its edges and their conditions, and that the walk
// can end.
func (c *checker) graph(p path, g *Graph, agentTools []string) {
	np := p.key("nodes")
	nodes := make(map[string]int, len(g.Nodes))
	var order []string
	for name := range g.Nodes {
		order = append(order, name)
	}
	// Map order is random; sorted names keep the report stable.
	sort.Strings(order)
	for i, name := range order {
		nodes[name] = i
	}
	if len(g.Nodes) == 0 {
		c.add(np, "no nodes: a graph needs at least a start and an end node")
	}
	switch _, ok := nodes[g.Start]; {
	case g.Start == "":
		c.add(p.key("start"), "missing: the node the graph starts at")
	case !ok:
		c.add(p.key("start"), "unknown node %q (nodes: %s)", g.Start, known(nodes))
	}
	for _, name := range order {
		c.node(np.key(name), g.Nodes[name], agentTools)
	}
	for j, e := range g.Edges {
		c.edge(p.key("edges").idx(j), e, g.Nodes, nodes)
	}
	if _, ok := nodes[g.Start]; ok && !endReachable(g) {
		c.add(p, "no end node is reachable from start %q: the walk could never finish", g.Start)
	}
}

func (c *checker) node(p path, n GraphNode, agentTools []string) {
	var kinds []string
	if n.Tool != "" {
		kinds = append(kinds, "tool")
	}
	if n.LLM {
		kinds = append(kinds, "llm")
	}
	if n.Human {
		kinds = append(kinds, "human")
	}
	if n.End {
		kinds = append(kinds, "end")
	}
	if len(kinds) != 1 {
		got := "none"
		if len(kinds) > 1 {
			got = strings.Join(kinds, " and ")
		}
		c.add(p, "a node is exactly one of tool, llm, human or end; this one is %s", got)
	}
	if n.Tool != "" && !slices.Contains(agentTools, n.Tool) {
		c.add(p.key("tool"), "tool %q is not one of the agent's tools (%s)", n.Tool, strings.Join(agentTools, ", "))
	}
	if n.Tool == "" && (n.Args != nil || n.OutputPath != "") {
		c.add(p, "args and output_path apply to tool nodes only")
	}
	if n.Args != nil {
		if _, err := json.Marshal(n.Args); err != nil {
			c.add(p.key("args"), "%s", notJSON(err))
		} else {
			c.refs(p.key("args"), n.Args)
		}
	}
	if n.OutputPath != "" && !isOutputPath(n.OutputPath) {
		c.add(p.key("output_path"), "invalid output path %q: want a state path such as †state.result", n.OutputPath)
	}
	if n.Output != "" {
		if !n.End {
			c.add(p.key("output"), "output applies to end nodes only")
		} else if strings.HasPrefix(n.Output, RefPrefix) && !IsRef(n.Output) {
			c.add(p.key("output"), "invalid variable reference %q: want †state.<path> or †input.<path>", n.Output)
		}
	}
}

// refs checks that every string of args that starts with † is a
// well-formed Variable Reference: a typo there would otherwise be sent to
// the tool as a literal string.
func (c *checker) refs(p path, v any) {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, RefPrefix) && !IsRef(v) {
			c.add(p, "invalid variable reference %q: want †state.<path> or †input.<path> (or alternatives joined by ||)", v)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			c.refs(p.key(k), v[k])
		}
	case []any:
		for i, x := range v {
			c.refs(p.idx(i), x)
		}
	}
}

func (c *checker) edge(p path, e GraphEdge, g map[string]GraphNode, nodes map[string]int) {
	for _, end := range []struct{ key, name string }{{"from", e.From}, {"to", e.To}} {
		switch _, ok := nodes[end.name]; {
		case end.name == "":
			c.add(p.key(end.key), "missing: every edge needs from and to")
		case !ok:
			c.add(p.key(end.key), "unknown node %q (nodes: %s)", end.name, known(nodes))
		}
	}
	if g[e.From].End {
		c.add(p.key("from"), "node %q is an end node: it has no outgoing edges", e.From)
	}
	if e.When != "" {
		if _, err := CompileWhen(e.When); err != nil {
			c.add(p.key("when"), "invalid condition %q: %s", e.When, firstLine(err.Error()))
		}
	}
}

// endReachable reports whether some end node can be reached from the
// start, following edges whatever their conditions.
func endReachable(g *Graph) bool {
	next := map[string][]string{}
	for _, e := range g.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	seen := map[string]bool{g.Start: true}
	queue := []string{g.Start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if node, ok := g.Nodes[n]; ok && node.End {
			return true
		}
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
