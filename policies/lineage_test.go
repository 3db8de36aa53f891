package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A run of two steps: n2 asked for n3 (writes flight), n4 (reads flight),
// n5 (independent); n4 has an approval n6; n7 is an escalation, n8 the
// next request with its call n9; n10 an edit record.
func lineageRun() []LineageNode {
	return []LineageNode{
		{ID: "n1", Kind: "task", Settled: true},
		{ID: "n2", Kind: "request", Settled: true},
		{ID: "n3", Kind: "call", Request: "n2", Settled: true},
		{ID: "n4", Kind: "call", Request: "n2", DependsOn: []string{"n3"}, Settled: true},
		{ID: "n5", Kind: "call", Request: "n2", Settled: true},
		{ID: "n6", Kind: "approval", Of: "n4", Settled: true},
		{ID: "n7", Kind: "escalation", Settled: true},
		{ID: "n8", Kind: "request", Settled: true},
		{ID: "n9", Kind: "call", Request: "n8", Settled: true},
		{ID: "n10", Kind: "edit", Audit: true, Settled: true},
	}
}

func TestPlanEdit(t *testing.T) {
	unsettled := lineageRun()
	unsettled[4].Settled = false // n5 was waiting for approval
	chained := lineageRun()
	chained = append(chained[:4:4], LineageNode{ID: "n5", Kind: "call", Request: "n2", DependsOn: []string{"n4"}, Settled: true})
	chained = append(chained, lineageRun()[5:]...)
	earlier := lineageRun()
	earlier[8].Invalid = true // n9 was invalidated by an earlier edit

	tests := []struct {
		name  string
		nodes []LineageNode
		edit  Edit
		want  EditPlan
	}{
		{"task: everything after it", lineageRun(), Edit{Node: "n1"},
			EditPlan{Invalidated: []string{"n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"}}},
		{"request: its calls and what followed, resumed from its reply", lineageRun(), Edit{Node: "n2"},
			EditPlan{Invalidated: []string{"n3", "n4", "n5", "n6", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"request: the calls it left as they were stay", lineageRun(), Edit{Node: "n2", Unchanged: []string{"n4", "n5"}},
			EditPlan{Invalidated: []string{"n3", "n4", "n6", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"request: only its thought changed", lineageRun(), Edit{Node: "n2", Unchanged: []string{"n3", "n4", "n5"}},
			EditPlan{Invalidated: []string{"n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"call output: the sibling that read it, not the independent one", lineageRun(), Edit{Node: "n3"},
			EditPlan{Invalidated: []string{"n4", "n6", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"call arguments: the call itself runs again too", lineageRun(), Edit{Node: "n3", Rerun: true},
			EditPlan{Invalidated: []string{"n3", "n4", "n6", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"independent call: siblings kept with their approval", lineageRun(), Edit{Node: "n5"},
			EditPlan{Invalidated: []string{"n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"a reader's output: its approval stays, the writer stays", lineageRun(), Edit{Node: "n4"},
			EditPlan{Invalidated: []string{"n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"unfinished sibling runs again", unsettled, Edit{Node: "n4"},
			EditPlan{Invalidated: []string{"n5", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"dependants through another call", chained, Edit{Node: "n3"},
			EditPlan{Invalidated: []string{"n4", "n5", "n6", "n7", "n8", "n9"}, ResumeCalls: "n2"}},
		{"already invalid nodes are not listed again", earlier, Edit{Node: "n8"},
			EditPlan{ResumeCalls: "n8"}},
		{"last call: nothing after the step", lineageRun(), Edit{Node: "n9"},
			EditPlan{ResumeCalls: "n8"}},
		{"a graph node's call: the rest of the walk", []LineageNode{
			{ID: "n1", Kind: "task", Settled: true}, {ID: "n2", Kind: "call", Settled: true},
			{ID: "n3", Kind: "call", Settled: true}, {ID: "n4", Kind: "edit", Audit: true}, {ID: "n5", Kind: "human", Settled: true},
		}, Edit{Node: "n2"}, EditPlan{Invalidated: []string{"n3", "n5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanEdit(tt.nodes, tt.edit)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPlanEditRefuses(t *testing.T) {
	invalid := lineageRun()
	invalid[2].Invalid = true
	graph := []LineageNode{{ID: "n1", Kind: "task"}, {ID: "n2", Kind: "call", Settled: true}}
	tests := []struct {
		name  string
		nodes []LineageNode
		edit  Edit
		want  string
	}{
		{"unknown", lineageRun(), Edit{Node: "n99"}, "node n99 is not in the trace"},
		{"invalidated", invalid, Edit{Node: "n3"}, "node n3 was invalidated by an earlier edit"},
		{"audit record", lineageRun(), Edit{Node: "n10"}, "node n10 is a record of a message and cannot be edited"},
		{"arguments of a request", lineageRun(), Edit{Node: "n2", Rerun: true}, "node n2 is a request: only a call's arguments can be edited"},
		{"graph call's arguments", graph, Edit{Node: "n2", Rerun: true}, "node n2 is a graph node's call, whose arguments are the graph's: edit its output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PlanEdit(tt.nodes, tt.edit)
			require.EqualError(t, err, tt.want)
		})
	}
}
