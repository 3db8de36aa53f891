package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Who gave the task keeps it, as a later message's author does: the task
// node names them (by) in its node and its arguments; a run started
// without one keeps the task node it always had.
func TestTheFirstMessageKeepsItsAuthor(t *testing.T) {
	h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{
		{Content: "Where to?"}, {Content: "Paris it is."},
	}, okTool)
	var msg updateResult
	h.message(10*time.Minute, "Paris, please", &msg)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book a trip", By: "ana"})
	require.NoError(t, err)
	tasks := nodesByKind(h.trace(), signals.KindTask)
	require.GreaterOrEqual(t, len(tasks), 2)
	require.Equal(t, "ana", tasks[0].By, "the task node names who gave it")
	require.JSONEq(t, `{"task": "book a trip", "input": {}, "by": "ana"}`, string(tasks[0].Args))
	require.Equal(t, "ana", tasks[1].By, "and so does a later message's")

	plain := newHarness(t, testSpec(), []activities.ModelReply{{Content: "done"}}, okTool)
	_, err = plain.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, err)
	first := nodesByKind(plain.trace(), signals.KindTask)[0]
	require.Empty(t, first.By)
	require.JSONEq(t, `{"task": "book a trip", "input": {}}`, string(first.Args), "as it always was")
}

func TestATaskByOverItsBoundIsRefused(t *testing.T) {
	h := newHarness(t, testSpec(), nil, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book", By: strings.Repeat("x", signals.MaxBy+1)})
	require.ErrorContains(t, err, "input.by is")
}
