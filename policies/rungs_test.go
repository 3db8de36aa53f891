package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRungAvailable(t *testing.T) {
	free := LoopSituation{}
	graph := LoopSituation{InGraph: true}
	with := func(s LoopSituation, f func(*LoopSituation)) LoopSituation { f(&s); return s }
	cases := []struct {
		name string
		rung string
		s    LoopSituation
		want bool
	}{
		{"retry always", RungRetry, free, true},
		{"human always", RungHuman, graph, true},
		{"stop always", RungStop, free, true},

		{"substitute: a fallback, breaker closed", RungSubstitute, with(free, func(s *LoopSituation) { s.LoopTool, s.HasFallback = "t", true }), true},
		{"substitute: no fallback", RungSubstitute, with(free, func(s *LoopSituation) { s.LoopTool = "t" }), false},
		{"substitute: breaker open already", RungSubstitute, with(free, func(s *LoopSituation) { s.LoopTool, s.HasFallback, s.BreakerOpen = "t", true, true }), false},

		{"explore graph: an edge off the cycle", RungExplore, with(graph, func(s *LoopSituation) { s.OffCycleEdge = true }), true},
		{"explore graph: none", RungExplore, with(graph, func(s *LoopSituation) { s.BlockableCalls = 3 }), false},
		{"explore free-form: calls to block", RungExplore, with(free, func(s *LoopSituation) { s.BlockableCalls = 1 }), true},
		{"explore free-form: nothing to block", RungExplore, with(free, func(s *LoopSituation) { s.OffCycleEdge = true }), false},

		{"rollback free-form: something before", RungRollback, with(free, func(s *LoopSituation) { s.LoopStart = 2 }), true},
		{"rollback free-form: nothing before", RungRollback, free, false},
		{"rollback graph: a way around", RungRollback, with(graph, func(s *LoopSituation) { s.LoopStart, s.EdgeAroundLoop = 1, true }), true},
		{"rollback graph: no way around", RungRollback, with(graph, func(s *LoopSituation) { s.LoopStart = 1 }), false},
		{"rollback graph: nothing before", RungRollback, with(graph, func(s *LoopSituation) { s.EdgeAroundLoop = true }), false},

		{"handoff: no targets (today)", RungHandoff, free, false},
		{"handoff: a target", RungHandoff, with(free, func(s *LoopSituation) { s.HandoffTargets = 1 }), true},

		{"an unknown rung", "pray", free, false},
		{"no rung", "", free, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RungAvailable(tc.rung, tc.s))
		})
	}
}

func TestChooseRung(t *testing.T) {
	all := []string{RungRetry, RungSubstitute, RungExplore, RungRollback, RungHandoff, RungHuman, RungStop}
	cases := []struct {
		name  string
		rungs []string
		s     LoopSituation
		want  []string // the rungs chosen by successive loops
	}{
		{
			"free-form, nothing but the always-available rungs", all, LoopSituation{},
			[]string{RungRetry, RungHuman, RungStop, RungStop},
		},
		{
			"free-form, everything", all,
			LoopSituation{LoopTool: "t", HasFallback: true, BlockableCalls: 2, LoopStart: 3, HandoffTargets: 1},
			all,
		},
		{
			"graph without a way around", []string{RungExplore, RungRollback, RungStop},
			LoopSituation{InGraph: true, OffCycleEdge: true, LoopStart: 1},
			[]string{RungExplore, RungStop},
		},
		{"no stop rung: exhausted is stop", []string{RungSubstitute, RungRetry}, LoopSituation{}, []string{RungRetry, RungStop, RungStop}},
		{"an empty ladder", nil, LoopSituation{}, []string{RungStop}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLadder(tc.rungs)
			var got []string
			for range tc.want {
				got = append(got, ChooseRung(l, tc.s))
			}
			require.Equal(t, tc.want, got)
			require.True(t, l.Exhausted())
		})
	}
}

func TestLoopTool(t *testing.T) {
	cases := []struct {
		name  string
		calls []LoopCall
		want  string
	}{
		{"no calls", nil, ""},
		{"the first call", []LoopCall{{Tool: "a"}, {Tool: "b"}}, "a"},
		{"the first failing call", []LoopCall{{Tool: "a"}, {Tool: "b", Failed: true}, {Tool: "c", Failed: true}}, "b"},
		{"a failing first call", []LoopCall{{Tool: "a", Failed: true}, {Tool: "b", Failed: true}}, "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, LoopTool(tc.calls))
		})
	}
}

func TestRungCount(t *testing.T) {
	cases := []struct {
		name  string
		taken []string
		rung  string
		want  int
	}{
		{"none taken", nil, RungRetry, 0},
		{"the current retry is attempt 1", []string{RungRetry}, RungRetry, 1},
		{"others do not count", []string{RungRetry, RungExplore, RungRetry, RungHuman}, RungRetry, 2},
		{"absent", []string{RungRetry, RungExplore}, RungStop, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RungCount(tc.taken, tc.rung))
		})
	}
}
