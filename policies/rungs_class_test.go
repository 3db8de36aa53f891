package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRungHelps(t *testing.T) {
	free := LoopSituation{ByClass: true, LoopTool: "t", BlockableCalls: 1}
	graph := LoopSituation{ByClass: true, InGraph: true, LoopTool: "t", OffCycleEdge: true}
	with := func(s LoopSituation, f func(*LoopSituation)) LoopSituation { f(&s); return s }
	class := func(s LoopSituation, c Class) LoopSituation { s.Class = c; return s }
	cases := []struct {
		name string
		rung string
		s    LoopSituation
		want bool
	}{
		{"retry: no failure", RungRetry, free, true},
		{"retry: transient, not retried by Temporal", RungRetry, class(free, Transient), true},
		{"retry: transient, right after Temporal's retries", RungRetry, with(class(free, Transient), func(s *LoopSituation) { s.Retried = true }), false},
		{"retry: a timeout", RungRetry, class(free, Timeout), true},
		{"retry: an open breaker's cooldown decides", RungRetry, class(free, CircuitOpen), false},
		{"retry: persistent", RungRetry, class(free, Persistent), false},
		{"retry: fatal", RungRetry, class(free, Fatal), false},
		{"retry: invalid arguments", RungRetry, class(free, InvalidArgs), false},
		{"retry: blocked calls stay blocked", RungRetry, class(free, Blocked), false},

		{"substitute: transient", RungSubstitute, with(class(free, Transient), func(s *LoopSituation) { s.HasFallback = true }), true},
		{"substitute: fatal, same provider", RungSubstitute, with(class(free, Fatal), func(s *LoopSituation) { s.HasFallback = true }), false},
		{"substitute: fatal, another provider", RungSubstitute, with(class(free, Fatal), func(s *LoopSituation) { s.HasFallback, s.OtherProvider = true, true }), true},
		{"substitute: another provider but no fallback", RungSubstitute, with(class(free, Fatal), func(s *LoopSituation) { s.OtherProvider = true }), false},
		{"substitute: persistent", RungSubstitute, with(class(free, Persistent), func(s *LoopSituation) { s.HasFallback = true }), true},

		{"explore: the tool is down and the model has no other tool", RungExplore, class(free, Transient), false},
		{"explore: fatal, no other tool", RungExplore, class(free, Fatal), false},
		{"explore: the tool is down, another tool", RungExplore, with(class(free, Transient), func(s *LoopSituation) { s.OtherTools = 1 }), true},
		{"explore: persistent, other arguments may do", RungExplore, class(free, Persistent), true},
		{"explore: no failure, the model repeats itself", RungExplore, free, true},
		{"explore graph: the tool is down, an edge off the cycle", RungExplore, class(graph, Transient), true},
		{"explore: nothing to block stays unavailable", RungExplore, with(class(free, Persistent), func(s *LoopSituation) { s.BlockableCalls = 0 }), false},

		{"rollback: persistent, the model may choose otherwise", RungRollback, with(class(free, Persistent), func(s *LoopSituation) { s.LoopStart = 2 }), true},
		{"rollback: the tool is down and the model has no other tool", RungRollback, with(class(free, Fatal), func(s *LoopSituation) { s.LoopStart = 2 }), false},
		{"rollback: the tool is down, another tool", RungRollback, with(class(free, CircuitOpen), func(s *LoopSituation) { s.LoopStart, s.OtherTools = 2, 1 }), true},
		{"rollback graph: the tool is down, a way around", RungRollback, with(class(graph, Transient), func(s *LoopSituation) { s.LoopStart, s.EdgeAroundLoop = 2, true }), true},
		{"handoff: as available", RungHandoff, class(free, Fatal), false},
		{"human: always", RungHuman, class(free, Fatal), true},
		{"stop: always", RungStop, class(free, Persistent), true},
		{"an unknown rung", "pray", free, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RungHelps(tc.rung, tc.s))
		})
	}
}

func TestChooseRungByClass(t *testing.T) {
	def := []string{RungRetry, RungSubstitute, RungExplore, RungRollback, RungHandoff, RungHuman, RungStop}
	cases := []struct {
		name  string
		rungs []string
		s     LoopSituation
		want  []string // the rungs chosen by successive loops
	}{
		{
			"a dead tool, retried by Temporal, no other tool: a person, then stop", def,
			LoopSituation{LoopTool: "t", Class: Transient, Retried: true, BlockableCalls: 1},
			[]string{RungHuman, RungStop},
		},
		{
			"a dead tool behind its open breaker, with steps before the loop: a person, then stop", def,
			LoopSituation{LoopTool: "t", Class: CircuitOpen, BlockableCalls: 1, LoopStart: 3},
			[]string{RungHuman, RungStop},
		},
		{
			"the same before rungs by class", def,
			LoopSituation{LoopTool: "t", Class: Transient, Retried: true, BlockableCalls: 1, ByClass: false},
			[]string{RungRetry, RungExplore, RungHuman, RungStop},
		},
		{
			"persistent: no retry", def,
			LoopSituation{LoopTool: "t", Class: Persistent, HasFallback: true, BlockableCalls: 1},
			[]string{RungSubstitute, RungExplore, RungHuman, RungStop},
		},
		{
			"fatal: neither retry nor a fallback of the same provider", def,
			LoopSituation{LoopTool: "t", Class: Fatal, HasFallback: true, BlockableCalls: 1, OtherTools: 1},
			[]string{RungExplore, RungHuman, RungStop},
		},
		{
			"fatal: a fallback of another provider substitutes", def,
			LoopSituation{LoopTool: "t", Class: Fatal, HasFallback: true, OtherProvider: true},
			[]string{RungSubstitute, RungHuman, RungStop},
		},
		{
			"invalid arguments: repair first, once, then the ladder", []string{RungRetry, RungExplore, RungStop},
			LoopSituation{LoopTool: "t", Class: InvalidArgs, CanRepair: true, BlockableCalls: 1},
			[]string{RungRepair, RungExplore, RungStop},
		},
		{
			"invalid arguments, repair off: the ladder", []string{RungRetry, RungExplore, RungStop},
			LoopSituation{LoopTool: "t", Class: InvalidArgs, BlockableCalls: 1},
			[]string{RungExplore, RungStop},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.ByClass = tc.name != "the same before rungs by class"
			l := NewLadder(tc.rungs)
			var got []string
			for range tc.want {
				got = append(got, ChooseRung(l, s))
			}
			require.Equal(t, tc.want, got)
			require.True(t, l.Exhausted())
		})
	}
}

func TestRepairFirstOncePerClimb(t *testing.T) {
	s := LoopSituation{ByClass: true, Class: InvalidArgs, CanRepair: true}
	l := NewLadder([]string{RungStop})
	require.True(t, RepairFirst(l, s))
	require.False(t, RepairFirst(l, s), "a second loop climbs the ladder")
	l.Reset()
	require.True(t, RepairFirst(l, s), "progress off the loop: a new loop of bad arguments is repaired again")
	require.False(t, RepairFirst(NewLadder(nil), LoopSituation{Class: Persistent, CanRepair: true}))
}

func TestClassRules(t *testing.T) {
	for _, tc := range []struct {
		class        Class
		cure, down   bool
		retried      bool // by a policy of 2 attempts
		retriedByOne bool // by a policy of 1 attempt
	}{
		{"", true, false, false, false},
		{Transient, true, true, true, false},
		{Timeout, true, true, true, false},
		{CircuitOpen, false, true, false, false},
		{Unclassified, true, false, false, false},
		{Persistent, false, false, false, false},
		{Fatal, false, true, false, false},
		{InvalidArgs, false, false, false, false},
		{Blocked, false, false, false, false},
		{Unverified, true, false, false, false},
		{OutcomeUnknown, true, false, false, false},
		{NoOp, false, false, false, false},
	} {
		t.Run(string(tc.class), func(t *testing.T) {
			require.Equal(t, tc.cure, TimeMayCure(tc.class), "TimeMayCure")
			require.Equal(t, tc.down, ToolDown(tc.class), "ToolDown")
			require.Equal(t, tc.retried, RetriedByTemporal(tc.class, 2), "RetriedByTemporal(2)")
			require.Equal(t, tc.retriedByOne, RetriedByTemporal(tc.class, 1), "RetriedByTemporal(1)")
		})
	}
	require.True(t, RetriedByTemporal(Transient, 0), "0 attempts is unlimited")
}

func TestLoopFailureAndOthers(t *testing.T) {
	calls := []LoopCall{{Tool: "a"}, {Tool: "b", Failed: true, Class: Persistent}, {Tool: "c", Failed: true, Class: Fatal}}
	tool, class := LoopFailure(calls)
	require.Equal(t, "b", tool)
	require.Equal(t, Persistent, class)
	require.Equal(t, LoopTool(calls), tool, "the same call LoopTool picks")
	tool, class = LoopFailure([]LoopCall{{Tool: "a"}})
	require.Empty(t, tool)
	require.Empty(t, class)

	require.Equal(t, 0, OtherTools([]string{"a"}, []LoopCall{{Tool: "a"}}))
	require.Equal(t, 2, OtherTools([]string{"a", "x", "y"}, calls[:1]))
	require.Equal(t, 1, OtherTools([]string{"x"}, nil))

	require.True(t, OtherProvider("openai", "anthropic"))
	require.False(t, OtherProvider("openai", "openai"))
	require.False(t, OtherProvider("", "anthropic"), "an unnamed provider is not known to differ")
	require.False(t, OtherProvider("openai", ""))
}
