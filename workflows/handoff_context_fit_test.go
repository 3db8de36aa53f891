package workflows

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/refs"
)

// fitCase builds a handoff context with steps reasoning steps of thought
// bytes each, records tool records of output bytes each, and State of
// state bytes.
func fitCase(steps, thought, records, output, state int) HandoffContext {
	hc := HandoffContext{
		Version: HandoffContextVersion, Session: "wf", InitialQuery: "where is order 7?", CurrentProblem: "the order is late",
		Reason: "out_of_scope", SourceAgent: "general", SuggestedAction: "look it up", HandoffPath: []string{"general"},
		Metadata:       map[string]any{"trigger": "tool"},
		Conversation:   []activities.Message{{Role: "user", Content: "where is order 7?"}},
		ReasoningTrace: []ReasoningStep{}, ToolRecords: []ToolRecord{}, State: refs.State{},
	}
	for i := 0; i < steps; i++ {
		hc.ReasoningTrace = append(hc.ReasoningTrace, ReasoningStep{Node: fmt.Sprintf("r%d", i), Step: i + 1, Thought: strings.Repeat("t", thought), Calls: []string{"a"}})
	}
	for i := 0; i < records; i++ {
		hc.ToolRecords = append(hc.ToolRecords, ToolRecord{Node: fmt.Sprintf("c%d", i), Tool: "a", Outcome: "completed", Output: mustJSON(strings.Repeat("o", output))})
	}
	if state > 0 {
		hc.State = refs.State{"blob": strings.Repeat("s", state)}
	}
	return hc
}

// withObservations adds n tool results of size bytes to a context's
// conversation.
func withObservations(hc HandoffContext, n, size int) HandoffContext {
	for i := 0; i < n; i++ {
		hc.Conversation = append(hc.Conversation,
			activities.Message{Role: "assistant", ToolCalls: []activities.ToolCall{{ID: fmt.Sprintf("k%d", i), Name: "a", Args: "{}"}}},
			activities.Message{Role: "tool", ToolCallID: fmt.Sprintf("k%d", i), Content: strings.Repeat("o", size)})
	}
	return hc
}

// A context over its bound gives up the oldest reasoning steps first
// (the newest stays), then the oldest tool records, then the State, then
// the conversation; the task, reason, summary, suggested action, source
// and path are never cut.
func TestFitHandoffContextDropsTheOldestReasoningFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		hc   HandoffContext
		// what is left: the first reasoning step kept (its node), how
		// many tool records, whether the State is whole
		firstStep        string
		steps            int // -1: any number, at least one
		records          int // -1: fewer than given, at least one
		stateWhole       bool
		conversationCut  bool
		newestThoughtCut bool
	}{
		{name: "within the bound: whole", hc: fitCase(20, 1<<10, 20, 1<<10, 1<<10),
			firstStep: "r0", steps: 20, records: 20, stateWhole: true},
		{name: "long reasoning: only its oldest steps go", hc: fitCase(300, 3<<10, 20, 1<<10, 10<<10),
			steps: -1, records: 20, stateWhole: true},
		{name: "reasoning then tool records", hc: fitCase(100, 3<<10, 200, 3<<10, 1<<10),
			firstStep: "r99", steps: 1, records: -1, stateWhole: true},
		{name: "then the State", hc: fitCase(50, 2<<10, 10, 1<<10, 600<<10),
			firstStep: "r49", steps: 1, records: 0, stateWhole: false},
		{name: "then the conversation after the task", hc: withObservations(fitCase(3, 1<<10, 0, 0, 1<<10), 2, 300<<10),
			firstStep: "r2", steps: 1, records: 0, stateWhole: false, conversationCut: true},
		{name: "a newest step too large alone is kept, its thought cut", hc: fitCase(3, 700<<10, 2, 1<<10, 1<<10),
			firstStep: "r2", steps: 1, records: 0, stateWhole: false, newestThoughtCut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given := len(tc.hc.ReasoningTrace)
			givenRecords := len(tc.hc.ToolRecords)
			newest := tc.hc.ReasoningTrace[given-1]
			before := string(mustJSON(tc.hc))
			fitted := fitHandoffContext(tc.hc)
			require.True(t, before == string(mustJSON(tc.hc)), "the context given is left as it was")
			require.LessOrEqual(t, len(mustJSON(fitted)), maxHandoffContext)

			require.Positive(t, len(fitted.ReasoningTrace))
			last := fitted.ReasoningTrace[len(fitted.ReasoningTrace)-1]
			require.Equal(t, newest.Node, last.Node, "the newest reasoning step stays")
			require.Equal(t, newest.Calls, last.Calls)
			if tc.newestThoughtCut {
				require.Less(t, len(last.Thought), len(newest.Thought))
				require.Contains(t, last.Thought, "cut")
			} else {
				require.Equal(t, newest.Thought, last.Thought)
			}
			// What stays is the newest steps, in order, none skipped.
			first := given - len(fitted.ReasoningTrace)
			for i, s := range fitted.ReasoningTrace {
				require.Equal(t, fmt.Sprintf("r%d", first+i), s.Node)
			}
			switch tc.steps {
			case -1:
				require.Less(t, len(fitted.ReasoningTrace), given)
			default:
				require.Equal(t, tc.steps, len(fitted.ReasoningTrace))
			}
			if tc.firstStep != "" {
				require.Equal(t, tc.firstStep, fitted.ReasoningTrace[0].Node)
			}
			if dropped := given - len(fitted.ReasoningTrace); dropped > 0 {
				require.Equal(t, dropped, fitted.Metadata["reasoning_steps_dropped"])
			} else {
				require.NotContains(t, fitted.Metadata, "reasoning_steps_dropped")
			}

			switch tc.records {
			case -1:
				require.Less(t, len(fitted.ToolRecords), givenRecords)
				require.Positive(t, len(fitted.ToolRecords))
				require.Equal(t, fmt.Sprintf("c%d", givenRecords-1), fitted.ToolRecords[len(fitted.ToolRecords)-1].Node, "the newest records stay")
			default:
				require.Equal(t, tc.records, len(fitted.ToolRecords))
			}
			if tc.records != givenRecords {
				require.Equal(t, givenRecords-len(fitted.ToolRecords), fitted.Metadata["tool_records_dropped"])
			}
			_, whole := fitted.State["blob"]
			require.Equal(t, tc.stateWhole, whole)
			cut := false
			for _, m := range fitted.Conversation {
				cut = cut || strings.Contains(m.Content, "were cut")
			}
			require.Equal(t, tc.conversationCut, cut)

			require.Equal(t, "where is order 7?", fitted.InitialQuery)
			require.Equal(t, "the order is late", fitted.CurrentProblem)
			require.Equal(t, "out_of_scope", fitted.Reason)
			require.Equal(t, "look it up", fitted.SuggestedAction)
			require.Equal(t, "general", fitted.SourceAgent)
			require.Equal(t, []string{"general"}, fitted.HandoffPath)
			require.Equal(t, "where is order 7?", fitted.Conversation[0].Content, "the task opens the conversation")
		})
	}
}
