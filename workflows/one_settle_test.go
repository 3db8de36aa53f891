package workflows

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// settledWithAnEditWaiting settles, with a person's edit waiting, a step
// of a run (a graph's, with graph) that ended as how says: "reply", a
// free-form reply without calls; "rung", a rung that stopped the run. It
// answers how the step ended and the kinds of the nodes it added.
func settledWithAnEditWaiting(ctx workflow.Context, how string, graph bool) (string, error) {
	spec := &config.Resolved{}
	if graph {
		spec.Agent.Graph = &config.Graph{}
	}
	r, err := newRunner(&Run{Spec: spec, Progress: Progress{Phase: signals.PhaseRunning}})
	if err != nil {
		return "", err
	}
	req := r.addNode(ctx, Node{Node: signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted}})
	live(r.life.Interrupt(life.Edit))
	var done bool
	switch how {
	case "reply":
		done, _, err = r.engine().settleTaken(ctx, taken{end: &stepEnd{bare: &bareReply{reqID: req.ID, reply: activities.ModelReply{Content: "the answer"}}}})
	case "rung":
		// The edit came during the rung's wait: after the step's end was
		// asked what ends the run (endOfStep), so the loop's settling
		// (settleLoop) is where the orders meet.
		_, done, err = r.engine().settleLoop(ctx, stepEnd{rung: &escalation{stopErr: errors.New("the rung stopped the run")}})
	}
	var kinds []signals.NodeKind
	for _, n := range r.run.Nodes[1:] {
		kinds = append(kinds, n.Kind)
	}
	switch {
	case errors.Is(err, errInterrupted):
		return fmt.Sprintf("for the edit %v", kinds), nil
	case done && err == nil && how == "rung":
		return fmt.Sprintf("for the edit %v", kinds), nil // the engine carries it out next
	case err != nil:
		return fmt.Sprintf("%v %v", err, kinds), nil
	}
	return fmt.Sprintf("ended %v", kinds), nil
}

func settlingWithAnEditWaiting(t *testing.T, how string, graph bool, before ...string) (string, int) {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(settledWithAnEditWaiting)
	asked := 0
	env.OnGetVersion(versionOneSettle, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(func(string, workflow.Version, workflow.Version) workflow.Version {
		if len(before) > 0 {
			return workflow.DefaultVersion
		}
		return 1
	})
	env.ExecuteWorkflow(settledWithAnEditWaiting, how, graph)
	require.NoError(t, env.GetWorkflowError())
	var got string
	require.NoError(t, env.GetWorkflowResult(&got))
	return got, asked
}

// A reply without calls that comes with an edit waiting leaves the run to
// the edit: its content is no output. A run recorded before one-settle
// took the content as the output first.
func TestAReplyWithoutCallsWaitsForTheEdit(t *testing.T) {
	got, asked := settlingWithAnEditWaiting(t, "reply", false)
	require.Equal(t, "for the edit []", got)
	require.Equal(t, 1, asked)
	got, _ = settlingWithAnEditWaiting(t, "reply", false, versionOneSettle)
	require.Equal(t, fmt.Sprintf("ended %v", []signals.NodeKind{signals.KindOutput}), got)
}

// An edit that came while a rung answered a loop is carried out before the
// rung's outcome, in both shapes; a free-form run recorded before
// one-settle took the rung's outcome first, and a graph never asks.
func TestAnEditComesBeforeTheRungInBothShapes(t *testing.T) {
	for _, graph := range []bool{false, true} {
		got, asked := settlingWithAnEditWaiting(t, "rung", graph)
		require.Equal(t, "for the edit []", got, "graph %v", graph)
		require.Equal(t, map[bool]int{false: 1, true: 0}[graph], asked, "graph %v", graph)
	}
	got, _ := settlingWithAnEditWaiting(t, "rung", false, versionOneSettle)
	require.Equal(t, "the rung stopped the run []", got)
	got, _ = settlingWithAnEditWaiting(t, "rung", true, versionOneSettle)
	require.Equal(t, "for the edit []", got, "a graph always carried the edit out first")
}

// With nothing waiting, a reply without calls settles the same in either
// order: the gate is not asked.
func TestAReplyWithoutCallsAsksNoGateWhenNothingWaits(t *testing.T) {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	wf := func(ctx workflow.Context) (bool, error) {
		r, err := newRunner(&Run{Spec: &config.Resolved{}, Progress: Progress{Phase: signals.PhaseRunning}})
		if err != nil {
			return false, err
		}
		return r.engine().bareReplyFirst(ctx), nil
	}
	env.RegisterWorkflow(wf)
	asked := 0
	env.OnGetVersion(versionOneSettle, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(workflow.Version(1)).Maybe()
	env.ExecuteWorkflow(wf)
	require.NoError(t, env.GetWorkflowError())
	var first bool
	require.NoError(t, env.GetWorkflowResult(&first))
	require.False(t, first)
	require.Zero(t, asked)
}
