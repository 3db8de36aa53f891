package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run between two generations (after an edit, or a continue-as-new that
// Temporal suggested) answers its queries "the run is starting: ask again
// in a moment" until the new generation has verified the state it
// carries; an update sent then waits for it. A fork read in that window
// must wait and read again, not fail for good. The window is held open here: the source's queue has a
// worker that cannot read histories while the edit continues it as new,
// so the new generation cannot verify its carried state (VerifyCarried
// fails and is retried) until a full worker comes back.
//
// It takes about 45 s, the longest test, and must: it waits on Temporal's
// own timeouts, as a real outage would. The blind worker's workflow task,
// retrying its local activity, is abandoned when that worker stops, and
// the server times it out before the full worker can take the run on.
func TestForkOfASourceBetweenGenerationsReadsItOnceItAnswers(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, shopHandler)
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{
		"shop": shopModel("place_order", map[string]any{"item": "book", "qty": 1}),
	})
	srcQueue := s.queue + "-source"
	startWorker := func(blind bool) func() {
		var w interface {
			Start() error
			Stop()
		}
		if blind {
			bw := worker.New(serverClient, srcQueue, workerOptions())
			app.RegisterWorkflow(bw)
			bw.RegisterActivity(activities.New(s.cfg, blindHistory{serverClient}))
			w = bw
		} else {
			ws, err := app.NewWorkers(serverClient, s.cfg, srcQueue, workerOptions())
			require.NoError(t, err)
			w = ws
		}
		require.NoError(t, w.Start())
		var once sync.Once
		stop := func() { once.Do(w.Stop) }
		t.Cleanup(stop)
		return stop
	}
	stopFull := startWorker(false)
	run, err := serverClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: fmt.Sprintf("fork-window-%d", time.Now().UnixNano()), TaskQueue: srcQueue, WorkflowExecutionTimeout: 5 * time.Minute,
	}, workflows.WorkflowName, workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	require.NoError(t, err)
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	lookup := callsOf(s.trace(s.latest(id)), "lookup")[0]

	stopFull()
	stopNoActivities := startWorker(true)
	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`)})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Eventually(t, func() bool {
		_, err := s.client.QueryWorkflow(context.Background(), id, "", signals.QueryStatus)
		return err != nil && strings.Contains(err.Error(), "the run is starting")
	}, 20*time.Second, 100*time.Millisecond, "generation 1 waits to verify its carried state")
	// An edit in the window waits for generation 1 to start, then applies
	// (docs/messages.md): the run goes on in generation 2 at price 13.
	type answer struct {
		res signals.EditResult
		err error
	}
	windowEdit := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		h, err := s.client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: signals.Edit,
			Args:         []any{signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":13}`)}},
			WaitForStage: client.WorkflowUpdateStageCompleted})
		var a answer
		if a.err = err; err == nil {
			a.err = h.Get(ctx, &a.res)
		}
		windowEdit <- a
	}()

	fork := s.startAny(t, map[string]any{"from": map[string]any{"workflow_id": id, "node_id": lookup.ID,
		"edit": map[string]any{"output": map[string]any{"item": "book", "price": 20}}}})
	time.Sleep(1500 * time.Millisecond) // the fork reads the source in the window (at least once)
	stopNoActivities()
	startWorker(false)
	edited := <-windowEdit
	require.NoError(t, edited.err, "the edit sent in the window is taken once the generation has started")
	require.Equal(t, 2, edited.res.Generation)
	c := s.awaitApproval(id, 2, "confirm")

	// The fork goes on to its confirm, unless it failed.
	require.Eventually(t, func() bool {
		d, err := s.client.DescribeWorkflowExecution(context.Background(), fork.GetID(), "")
		if err == nil && d.WorkflowExecutionInfo.Status != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return true
		}
		p, _ := s.phase(s.latest(fork.GetID()))
		return p == signals.PhaseAwaitingApproval
	}, 60*time.Second, 100*time.Millisecond)
	if p, _ := s.phase(s.latest(fork.GetID())); p != signals.PhaseAwaitingApproval {
		_, err := s.result(fork)
		require.NoError(t, err, "the fork reads its source once the source answers")
	}
	fc := s.awaitApproval(fork.GetID(), 0, "confirm")
	s.approveCall(fork.GetID(), fc.CallID)
	forkOut, err := s.result(fork)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 20, "order": "O-2"}`, string(forkOut.Output))

	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 13, "order": "O-1"}`, string(out.Output))
}

// blindHistory is a Temporal client whose history reads fail, as during an
// outage of the history service: VerifyCarried cannot confirm a carried
// run, and retries.
type blindHistory struct{ client.Client }

func (blindHistory) GetWorkflowHistory(context.Context, string, string, bool, enums.HistoryEventFilterType) client.HistoryEventIterator {
	return failingHistory{}
}

type failingHistory struct{}

func (failingHistory) HasNext() bool { return true }
func (failingHistory) Next() (*historypb.HistoryEvent, error) {
	return nil, errors.New("history unavailable (test)")
}
