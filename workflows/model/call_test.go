package model

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// fakeRun reads whole any call's arguments it is told to.
type fakeRun struct{ reads map[string]bool }

func (fakeRun) AddNode(workflow.Context, signals.Node)                             {}
func (fakeRun) Count(workflow.Context, string, int64, ...string)                   {}
func (fakeRun) OldestTurns() (Turns, bool)                                         { return Turns{}, false }
func (fakeRun) BesideBudget(workflow.Context) (int, string)                        { return 0, "" }
func (fakeRun) AddSummary(workflow.Context, Turns, activities.SummaryReply) string { return "" }
func (fakeRun) AskSummary(workflow.Context, activities.SummaryRequest) (activities.SummaryReply, error) {
	return activities.SummaryReply{}, nil
}
func (fakeRun) SendWhole()                        {}
func (f fakeRun) RepairReads(_, args string) bool { return f.reads[args] }

// callFor is a Call over s and mem for spec, whose gates answer answer
// and are noted in asked.
func callFor(s *State, mem *Memory, spec *config.Resolved, run fakeRun, answer workflow.Version, asked *[]string) *Call {
	cleared := 0
	return New(Parts{
		State: s, Memory: mem, ClearedBefore: &cleared, Spec: spec, Run: run,
		ErrorText: func(err error) string { return err.Error() },
		Version: func(_ workflow.Context, id string, _ workflow.Version) workflow.Version {
			*asked = append(*asked, id)
			return answer
		},
		Gates: Gates{ModelFallback: "model-fallback", FallbackCooldown: "fallback-cooldown",
			ModelHeartbeat: "model-heartbeat", ContextClear: "context-clear",
			LongerReply: "longer-reply", CutOffRepair: "cut-off-repair", SummaryAfterRaise: "summary-after-raise",
			NoAnswerLoop: "no-answer-loop", GraphNoAnswer: "graph-no-answer", StreamCalls: "stream-calls"},
	})
}

// The prompt budget's gate is asked once a generation, and only for an
// agent with policies.context; before it, no budget.
func TestPromptBudgetAsksItsGateOnce(t *testing.T) {
	spec := &config.Resolved{
		Model: config.Model{Name: "m", ContextWindow: 1000, MaxOutputTokens: 200},
		Agent: config.Agent{Policies: config.Policies{Context: &config.ContextPolicy{CompactAt: 0.5}}},
	}
	for _, tc := range []struct {
		answer workflow.Version
		budget int
	}{{1, 400}, {workflow.DefaultVersion, 0}} {
		var asked []string
		mem := &Memory{}
		for range 3 {
			require.Equal(t, tc.budget, callFor(&State{}, mem, spec, fakeRun{}, tc.answer, &asked).PromptBudget(nil))
		}
		require.Equal(t, []string{"context-clear"}, asked)
	}
	var asked []string
	require.Zero(t, callFor(&State{}, &Memory{}, &config.Resolved{}, fakeRun{}, 1, &asked).PromptBudget(nil))
	require.Empty(t, asked, "no context policy: no gate")
}

// A reply cut off in arguments the repair rules read whole is not asked
// again, in the version that says so; its gate is asked only then.
func TestCutOffAsksItsGateOnlyWhenTheAnswersDiffer(t *testing.T) {
	cut := func(args ...string) activities.ModelReply {
		r := activities.ModelReply{FinishReason: "length"}
		for _, a := range args {
			r.ToolCalls = append(r.ToolCalls, activities.ToolCall{Name: "t", Args: a})
		}
		return r
	}
	run := fakeRun{reads: map[string]bool{"```{}```": true}}
	for _, tc := range []struct {
		name   string
		reply  activities.ModelReply
		answer workflow.Version
		want   bool
		asked  []string
	}{
		{"whole arguments", cut(`{}`), 1, false, nil},
		{"unreadable", cut(`{"a":`), 1, true, nil},
		{"readable by rule", cut("```{}```"), 1, false, []string{"cut-off-repair"}},
		{"readable by rule, before", cut("```{}```"), workflow.DefaultVersion, true, []string{"cut-off-repair"}},
		{"not cut off", activities.ModelReply{ToolCalls: cut(`{"a":`).ToolCalls}, 1, false, nil},
	} {
		var asked []string
		got := callFor(&State{}, &Memory{}, &config.Resolved{}, run, tc.answer, &asked).CutOff(nil, tc.reply)
		require.Equal(t, tc.want, got, tc.name)
		require.Equal(t, tc.asked, asked, tc.name)
	}
}

// A longer reply is asked with the output bound of the model in use: a
// fallback's own window is unknown, so none is asked, and the gate is not
// asked either.
func TestNoLongerReplyWithoutTheModelsOutputBound(t *testing.T) {
	spec := &config.Resolved{Model: config.Model{Name: "m", ContextWindow: 1000, MaxOutputTokens: 200,
		Fallbacks: []config.ModelFallback{{Name: "n"}}}}
	var asked []string
	c := callFor(&State{ModelAt: 1}, &Memory{}, spec, fakeRun{}, 1, &asked)
	require.Zero(t, c.LongerReply(nil, "r1"))
	require.Empty(t, asked)
	compactions, longer := c.Shown("r1")
	require.Empty(t, compactions)
	require.Zero(t, longer)
}

// The model choice keeps the run's JSON fields where they were.
func TestStateIsTheRunsJSON(t *testing.T) {
	s := State{ModelAt: 1, ModelSince: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ModelFallbacks: 2}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, `{"model_at":1,"model_since":"2026-01-02T03:04:05Z","model_fallbacks":2}`, string(b))
	b, err = json.Marshal(State{})
	require.NoError(t, err)
	require.Equal(t, `{}`, string(b))
}

// A reply's no-answer gate is asked only for a reply that answered
// nothing, and before it such a reply is not counted.
func TestNoAnswerAsksItsGateOnlyForAReplyThatAnswersNothing(t *testing.T) {
	var asked []string
	c := callFor(&State{}, &Memory{}, &config.Resolved{}, fakeRun{}, 1, &asked)
	_, ok := c.NoAnswer(nil, "done", "", "stop")
	require.False(t, ok)
	require.Empty(t, asked)
	na, ok := c.NoAnswer(nil, "", "", "stop")
	require.True(t, ok)
	require.NotEmpty(t, na.Told)
	_, ok = c.GraphNoAnswer(nil, "", "no", "stop")
	require.True(t, ok)
	require.Equal(t, []string{"no-answer-loop", "graph-no-answer"}, asked)
	_, ok = callFor(&State{}, &Memory{}, &config.Resolved{}, fakeRun{}, workflow.DefaultVersion, &asked).NoAnswer(nil, "", "", "stop")
	require.False(t, ok, "before the version, not counted")
}

// Streaming's gate is asked once a generation, and only for an agent that
// streams its calls.
func TestStreamsAsksItsGateOnce(t *testing.T) {
	var asked []string
	mem := &Memory{}
	spec := &config.Resolved{Agent: config.Agent{StreamCalls: true}}
	for range 2 {
		require.True(t, callFor(&State{}, mem, spec, fakeRun{}, 1, &asked).Streams(nil))
	}
	require.Equal(t, []string{"stream-calls"}, asked)
	require.False(t, callFor(&State{}, &Memory{}, &config.Resolved{}, fakeRun{}, 1, &asked).Streams(nil))
	require.Len(t, asked, 1)
}
