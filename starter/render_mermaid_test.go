package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestRenderMermaid(t *testing.T) {
	tests := []struct {
		name    string
		trace   signals.Trace
		want    []string // lines that must appear
		notWant []string // substrings that must not
	}{
		{
			name:  "empty trace is a valid empty flowchart",
			trace: signals.Trace{},
			want:  []string{"flowchart TD", "    classDef failed fill:#f8d7da,stroke:#dc3545,color:#721c24"},
			notWant: []string{
				"-->", "    class ",
			},
		},
		{
			name: "nodes, edges and classes",
			trace: signals.Trace{Nodes: []signals.Node{
				{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
				{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}},
				{ID: "n3", Kind: signals.KindCall, Tool: "book_flight", Status: signals.StatusFailed, Parents: []string{"n2"}},
				{ID: "n4", Kind: signals.KindCall, Tool: "search", Status: signals.StatusInvalidated, Parents: []string{"n2", "n3"}},
				{ID: "n5", Kind: signals.KindRequest, Status: signals.StatusRunning, Parents: []string{"n4"}},
			}},
			want: []string{
				"flowchart TD",
				`    n_n1["n1 task<br/>completed"]`,
				`    n_n3["n3 call<br/>book_flight<br/>failed"]`,
				"    n_n1 --> n_n2",
				"    n_n2 --> n_n3",
				"    n_n2 --> n_n4",
				"    n_n3 --> n_n4",
				"    n_n4 --> n_n5",
				"    class n_n1,n_n2 completed",
				"    class n_n3 failed",
				"    class n_n4 invalidated",
				"    class n_n5 running",
				"    classDef completed fill:#d4edda,stroke:#28a745,color:#155724",
				"    classDef invalidated fill:#ffffff,stroke:#6c757d,color:#6c757d,stroke-dasharray:5 5",
				"    classDef running fill:#e2e3e5,stroke:#6c757d,color:#383d41",
				"    classDef pending fill:#e2e3e5,stroke:#6c757d,color:#383d41",
			},
		},
		{
			name: "unsafe ids and quotes are escaped",
			trace: signals.Trace{Nodes: []signals.Node{
				{ID: "end", Kind: signals.KindOutput, Status: signals.StatusCompleted},
				{ID: "a-b c", Kind: signals.KindCall, Tool: `say "hi" <b>#1`, Status: signals.StatusPending, Parents: []string{"end"}},
				{ID: "a_b", Kind: signals.KindCall, Status: signals.StatusSkipped},
			}},
			want: []string{
				`    n_end["end output<br/>completed"]`,
				`    n_a_2db_20c["a-b c call<br/>say #quot;hi#quot; #lt;b#gt;#35;1<br/>pending"]`,
				`    n_a_5fb["a_b call<br/>skipped"]`,
				"    n_end --> n_a_2db_20c",
			},
			notWant: []string{`"hi"`, "<b>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, renderMermaid(&buf, tt.trace))
			out := buf.String()
			require.True(t, strings.HasPrefix(out, "flowchart TD\n"), out)
			lines := strings.Split(out, "\n")
			for _, w := range tt.want {
				require.Contains(t, lines, w, out)
			}
			for _, nw := range tt.notWant {
				require.NotContains(t, out, nw)
			}
		})
	}
}

func TestMermaidIDIsSafeAndInjective(t *testing.T) {
	ids := []string{"n1", "n-1", "n_1", "n 1", "n.1", "N1", "end", "", "é"}
	seen := map[string]string{}
	for _, id := range ids {
		m := mermaidID(id)
		for _, c := range m {
			require.True(t, c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9', "id %q -> %q", id, m)
		}
		prev, dup := seen[m]
		require.False(t, dup, "%q and %q both map to %q", prev, id, m)
		seen[m] = id
	}
}
