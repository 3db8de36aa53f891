package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/signals"
)

// mermaidClasses style nodes by status, in the order they are declared.
var mermaidClasses = []struct {
	status signals.NodeStatus
	style  string
}{
	{signals.StatusCompleted, "fill:#d4edda,stroke:#28a745,color:#155724"},
	{signals.StatusFailed, "fill:#f8d7da,stroke:#dc3545,color:#721c24"},
	{signals.StatusRunning, "fill:#e2e3e5,stroke:#6c757d,color:#383d41"},
	{signals.StatusPending, "fill:#e2e3e5,stroke:#6c757d,color:#383d41"},
	{signals.StatusAwaitingApproval, "fill:#fff3cd,stroke:#ffc107,color:#856404"},
	{signals.StatusInvalidated, "fill:#ffffff,stroke:#6c757d,color:#6c757d,stroke-dasharray:5 5"},
	{signals.StatusSkipped, "fill:#f8f9fa,stroke:#adb5bd,color:#6c757d"},
}

// renderMermaid writes the trace as a Mermaid flowchart: one node per
// trace node, an edge from each parent, a class per status.
func renderMermaid(w io.Writer, tr signals.Trace) error {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	for _, n := range tr.Nodes {
		fmt.Fprintf(&b, "    %s[\"%s\"]\n", mermaidID(n.ID), mermaidLabel(n))
	}
	for _, n := range tr.Nodes {
		for _, p := range n.Parents {
			fmt.Fprintf(&b, "    %s --> %s\n", mermaidID(p), mermaidID(n.ID))
		}
	}
	byStatus := map[signals.NodeStatus][]string{}
	for _, n := range tr.Nodes {
		byStatus[n.Status] = append(byStatus[n.Status], mermaidID(n.ID))
	}
	for _, c := range mermaidClasses {
		fmt.Fprintf(&b, "    classDef %s %s\n", c.status, c.style)
	}
	for _, c := range mermaidClasses {
		if ids := byStatus[c.status]; len(ids) > 0 {
			fmt.Fprintf(&b, "    class %s %s\n", strings.Join(ids, ","), c.status)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidID maps a trace node id to a Mermaid node id: letters and digits
// are kept, every other byte becomes _xx (hex), so distinct ids stay
// distinct, and the "n_" prefix keeps ids off Mermaid keywords like "end".
func mermaidID(id string) string {
	var b strings.Builder
	b.WriteString("n_")
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02x", c)
	}
	return b.String()
}

// mermaidLabel is "id kind", then the tool, then the status, one per line.
func mermaidLabel(n signals.Node) string {
	lines := []string{mermaidText(n.ID + " " + string(n.Kind))}
	if n.Tool != "" {
		lines = append(lines, mermaidText(toolOf(n)))
	}
	lines = append(lines, mermaidText(string(n.Status)))
	return strings.Join(lines, "<br/>")
}

// mermaidText escapes text for a quoted Mermaid label with entity codes:
// a raw quote would end the label, and <, > would be read as HTML.
func mermaidText(s string) string {
	s = termtext.Visible(s)
	return strings.NewReplacer(
		"#", "#35;",
		`"`, "#quot;",
		"<", "#lt;",
		">", "#gt;",
	).Replace(oneLine(s))
}
