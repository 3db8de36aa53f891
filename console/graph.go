package console

import (
	"fmt"

	"github.com/unstuck-dev/unstuck/signals"
)

// The graph's geometry, in SVG user units.
const (
	nodeW   = 168
	nodeH   = 50
	gapX    = 24
	gapY    = 44
	margin  = 16
	loopPad = 40 // room on the right for loop edges
)

// graph is a trace laid out for inline SVG: nodes in layers by depth (a
// node sits one layer below its deepest parent), edges from each parent,
// and a loop edge back from each node where the loop detector fired.
type graph struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
	Loops         []graphEdge
}

type graphNode struct {
	signals.Node
	X, Y  int
	Loop  string // the loop found here ("tool_repeat x3"), if any
	Title string // the tooltip: status, error
}

// Class is the node's classes: "node", its kind and status, and
// "invalidated", "archived", "loop", "verified", "unverified",
// "outcome_unknown" or "read-back" when they apply.
func (n graphNode) Class() string {
	c := "node kind-" + string(n.Kind) + " status-" + string(n.Status)
	if n.Status == signals.StatusInvalidated {
		c += " invalidated"
	}
	if n.Archived {
		c += " archived"
	}
	if n.Loop != "" {
		c += " loop"
	}
	if n.Check != nil {
		c += " " + n.Check.Verdict()
	}
	if n.CheckOf != "" {
		c += " read-back"
	}
	return c
}

// CheckMark is the call's check in the graph: "✗ unverified",
// "✓ verified", or "" for a call with none.
func (n graphNode) CheckMark() string { return checkMark(n.Check) }

type graphEdge struct {
	From, To string
	D        string // the SVG path
	Class    string
}

// layoutGraph lays out tr; loops are the status's detected loops.
func layoutGraph(tr signals.Trace, loops []signals.Loop) graph {
	depth := map[string]int{}
	index := map[string]int{}
	var layers [][]int // node indexes by depth
	for i, n := range tr.Nodes {
		d := 0
		for _, p := range n.Parents {
			if pd, ok := depth[p]; ok && pd+1 > d {
				d = pd + 1
			}
		}
		depth[n.ID] = d
		index[n.ID] = i
		for len(layers) <= d {
			layers = append(layers, nil)
		}
		layers[d] = append(layers[d], i)
	}
	g := graph{Nodes: make([]graphNode, len(tr.Nodes))}
	widest := 1
	for d, layer := range layers {
		widest = max(widest, len(layer))
		for col, i := range layer {
			n := tr.Nodes[i]
			g.Nodes[i] = graphNode{Node: n, X: margin + col*(nodeW+gapX), Y: margin + d*(nodeH+gapY), Title: nodeTitle(n)}
		}
	}
	g.Width = 2*margin + widest*(nodeW+gapX) - gapX + loopPad
	g.Height = 2*margin + max(1, len(layers))*(nodeH+gapY) - gapY
	for _, n := range g.Nodes {
		for _, p := range n.Parents {
			pi, ok := index[p]
			if !ok {
				continue // a parent outside the trace read: nothing to draw from
			}
			class := "edge"
			if n.Status == signals.StatusInvalidated {
				class += " invalidated"
			}
			g.Edges = append(g.Edges, graphEdge{From: p, To: n.ID, D: edgePath(g.Nodes[pi], n), Class: class})
		}
	}
	for _, l := range loops {
		at, ok := index[l.At]
		if !ok {
			continue
		}
		g.Nodes[at].Loop = fmt.Sprintf("%s ×%d", l.Kind, l.Repeats)
		if back := firstRepeat(tr.Nodes, at); back >= 0 {
			g.Loops = append(g.Loops, graphEdge{From: tr.Nodes[at].ID, To: tr.Nodes[back].ID,
				D: loopPath(g.Nodes[at], g.Nodes[back], g.Width), Class: "edge loop"})
		}
	}
	return g
}

// firstRepeat is the earliest node before at of the same kind, tool and
// agent: where the repeating stretch began. -1 when there is none.
func firstRepeat(nodes []signals.Node, at int) int {
	n := nodes[at]
	for i := 0; i < at; i++ {
		m := nodes[i]
		if m.Kind == n.Kind && m.Tool == n.Tool && m.Agent == n.Agent && m.Status != signals.StatusInvalidated {
			return i
		}
	}
	return -1
}

// edgePath runs from the bottom of the parent to the top of the child.
func edgePath(from, to graphNode) string {
	x1, y1 := from.X+nodeW/2, from.Y+nodeH
	x2, y2 := to.X+nodeW/2, to.Y
	mid := (y1 + y2) / 2
	return fmt.Sprintf("M%d %d C%d %d, %d %d, %d %d", x1, y1, x1, mid, x2, mid, x2, y2)
}

// loopPath runs from the right of the node where the loop was found, out
// to the graph's right margin and back up to where the repeats began.
func loopPath(from, to graphNode, width int) string {
	x1, y1 := from.X+nodeW, from.Y+nodeH/2
	x2, y2 := to.X+nodeW, to.Y+nodeH/2
	out := width - loopPad/2
	return fmt.Sprintf("M%d %d C%d %d, %d %d, %d %d", x1, y1, out, y1, out, y2, x2, y2)
}

func nodeTitle(n signals.Node) string {
	t := fmt.Sprintf("%s %s: %s", n.ID, n.Kind, n.Status)
	if n.Agent != "" {
		t += " (agent " + n.Agent + ")"
	}
	if n.Archived {
		t += "\narchived: held by a closed generation of the run"
	}
	if n.CheckOf != "" {
		t += "\nread-back of " + n.CheckOf
	}
	if n.Error != "" {
		t += "\nerror: " + clip(n.Error, 300)
	}
	if n.Check != nil {
		t += "\ncheck: " + n.Check.Verdict()
	}
	return t
}

// Label is the node's visible label: "id kind", or for a read-back
// "id read-back of nX": it checks that call, the model never asked it.
func (n graphNode) Label() string {
	if n.CheckOf != "" {
		return n.ID + " read-back of " + n.CheckOf
	}
	return n.ID + " " + string(n.Kind)
}

// ToolLabel is the tool line: the tool, "(fallback for x)" when a fallback
// served it; for a handoff, where it went.
func (n graphNode) ToolLabel() string {
	switch {
	case n.FallbackOf != "":
		return clip(n.Tool+" (for "+n.FallbackOf+")", 26)
	case n.Tool != "":
		return clip(n.Tool, 26)
	case n.Kind == signals.KindHandoff && n.To != "":
		return clip(n.From+" → "+n.To, 26)
	}
	return ""
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
