package testsuite

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A long conversation, in both run shapes, on the worker binary and the
// real server: each message is a large one (24 KiB), so the trace is soon
// over what a run carries whole. The turns that have ended are archived
// with their messages (gate turn-archive): each generation carries about
// the same, however many turns came before, and every message is still
// read through `unstuck trace`, from the closed generation that holds
// it. A message whose "by" is over its bound is refused.

func TestParityOfALongConversationsCarriedState(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "a long conversation carries a bounded state", shape: shape, run: func(t *testing.T) { longConversationCarries(t, shape) }})
	}
	runParity(t, cells)
}

// archiveTurns is how many turns the long conversation has at least: their
// messages weigh about twice what a run carries whole.
const archiveTurns = 48

// bigMessage is message i of the long conversation, 24 KiB that differ
// for each i.
func bigMessage(i int) string { return fmt.Sprintf("message %d: %s", i, hexOf(i, 12<<10)) }

// heardBriefly (a test double) answers each turn with the start of the
// last user message, and how many user messages it was sent.
func heardBriefly(req openaiRequest) scriptedmodel.Turn {
	users := userMessages(req)
	heard, _, _ := strings.Cut(users[len(users)-1], ":")
	return finalOutput(map[string]any{"heard": heard, "users": len(users)})
}

func longConversationCarries(t *testing.T, shape string) {
	s := newBinaryStack(t, conversationParityConfig, map[string]scriptedmodel.Script{"parity": heardBriefly})
	first := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "hello"})
	run, firstRunID := latestRun{first}, first.GetRunID()
	asked := func(n int) {
		require.Eventually(t, func() bool { return s.model.RequestCount() >= n }, time.Minute, 20*time.Millisecond, "model request %d", n)
	}
	asked(1)
	// How often Temporal suggests continue-as-new depends on how the
	// messages fell into workflow tasks (a loaded machine batches more):
	// the conversation goes on past archiveTurns until it has continued as
	// new three times, so each bound below is seen on several generations.
	turns := 1
	for ; turns < archiveTurns || (s.status(run).Generation < 3 && turns < 2*archiveTurns); turns++ {
		sendMessage(t, s, run, bigMessage(turns))
		asked(turns + 1)
	}
	err := s.updateInto(run, signals.Message, signals.MessageRequest{Text: "hi", Audit: signals.Audit{By: strings.Repeat("b", 1<<10)}}, nil)
	require.ErrorContains(t, err, `message: "by" is 1024 bytes, over the 256 bytes it may hold`)
	got, err := s.result(run) // idle, it ends with its last output
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"heard": "message %d", "users": %d}`, turns-1, lastUsers(t, s)), string(got.Output))
	require.GreaterOrEqual(t, got.Generation, 3, "the conversation continued as new several times")

	// What each generation carried: the newest turns, about as much after
	// many turns as after a few.
	var carried []carriedRun
	var archiving client.WorkflowRun
	for rid := firstRunID; ; {
		c, next := carriedBy(t, s, first.GetID(), rid)
		if next == "" {
			break
		}
		if c.archived && archiving == nil {
			archiving = s.client.GetWorkflow(context.Background(), first.GetID(), rid)
		}
		carried = append(carried, c)
		t.Logf("generation %d carried %d KiB (%d KiB as JSON), %d of the %d messages so far", len(carried)-1, c.payload>>10, c.json>>10, c.messages, c.taken)
		rid = next
	}
	require.NotNil(t, archiving, "the trace outgrew 512 KiB: its oldest part was archived")
	for g, c := range carried {
		// About 512 KiB of trace at most (what is carried whole): 21
		// messages of 24 KiB.
		require.LessOrEqual(t, c.messages, 22, "generation %d: the messages of turns that ended are archived with their turns", g)
		require.Less(t, c.json, 640<<10, "generation %d: the carried state stays bounded", g)
	}

	// Every message, read with `unstuck trace` through the closed
	// generations that hold them.
	out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), "trace", first.GetID(), "--format", "json", "--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	var whole signals.Trace
	require.NoError(t, json.Unmarshal(out, &whole))
	var said []signals.Node
	for _, n := range nodesOf(whole, signals.KindTask) {
		if n.Status == signals.StatusCompleted && strings.Contains(string(n.Args), `"message"`) {
			said = append(said, n)
		}
	}
	require.Len(t, said, turns-1)
	for i, n := range said {
		var m struct{ Message string }
		require.NoError(t, json.Unmarshal(n.Args, &m))
		require.Equal(t, bigMessage(i+1), m.Message, "message %d, read whole", i+1)
	}
	require.True(t, said[0].Archived, "the first message is read from the generation that holds it")

	// A fork from an archived turn (the contract's form: no run id) reads
	// the generation that holds it, and answers that turn again.
	var answered string
	for _, n := range whole.Nodes {
		if n.Kind == signals.KindRequest && nodeNum(n.ID) > nodeNum(said[0].ID) {
			answered = n.ID
			break
		}
	}
	fork := s.start(workflows.AgentInput{From: &workflows.ForkFrom{WorkflowID: first.GetID(), NodeID: answered}})
	forked, err := s.result(fork)
	require.NoError(t, err, "a fork of archived node %s", answered)
	require.JSONEq(t, `{"heard": "message 1", "users": 2}`, string(forked.Output), "the fork answers the archived turn")

	// The model of the last turn read the task, a note where the archived
	// turns were, and the turns kept since.
	reqs := s.model.Requests()
	users := userMessages(reqs[len(reqs)-1])
	require.Equal(t, "hello", users[0])
	require.Contains(t, users[1], "are archived")
	require.Equal(t, bigMessage(turns-1), users[len(users)-1])
	require.Less(t, len(users), turns, "not every message")

	// The generation that archived the turns (marker turn-archive).
	require.True(t, hasMarker(t, s, archiving, "turn-archive"))
	recordAndReplay(t, archiving, "conversation_turns_archived_"+strings.ReplaceAll(shape, "-", "_"))
}

// lastUsers is how many user messages the model's last request held.
func lastUsers(t *testing.T, s *stack) int {
	t.Helper()
	reqs := s.model.Requests()
	return len(userMessages(reqs[len(reqs)-1]))
}

// carriedRun is what one continue-as-new carried: the input's payload
// size, the run as JSON, its message nodes, and the messages taken so
// far (the last message's number), and whether its trace is archived.
type carriedRun struct {
	payload, json, messages, taken int
	archived                       bool
}

// carriedBy reads what run rid of the workflow carried into the next
// generation, and that generation's run id ("" when rid did not continue
// as new).
func carriedBy(t *testing.T, s *stack, workflowID, rid string) (carriedRun, string) {
	t.Helper()
	last := lastEvent(t, s, workflowID, rid)
	if last.GetEventType() != enums.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
		return carriedRun{}, ""
	}
	attrs := last.GetWorkflowExecutionContinuedAsNewEventAttributes()
	var c carriedRun
	var in workflows.AgentInput
	for _, p := range attrs.GetInput().GetPayloads() {
		c.payload += len(p.GetData())
		require.NoError(t, json.Unmarshal(p.GetData(), &in))
	}
	data := []byte(nil)
	if len(in.ContinuedGzip) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(in.ContinuedGzip))
		require.NoError(t, err)
		data, err = io.ReadAll(zr)
		require.NoError(t, err)
	} else {
		data, _ = json.Marshal(in.Continued)
	}
	var carried workflows.Run
	require.NoError(t, json.Unmarshal(data, &carried))
	c.json, c.archived = len(data), carried.Archived != nil
	for _, n := range carried.Nodes {
		var m struct{ Message *string }
		if n.Kind == signals.KindTask && json.Unmarshal(n.Args, &m) == nil && m.Message != nil {
			c.messages++
			var k int
			if _, err := fmt.Sscanf(*m.Message, "message %d:", &k); err == nil {
				c.taken = max(c.taken, k)
			}
		}
	}
	return c, attrs.GetNewExecutionRunId()
}

// hasMarker says whether run's history records a version marker of
// changeID.
func hasMarker(t *testing.T, s *stack, run client.WorkflowRun, changeID string) bool {
	t.Helper()
	iter := s.client.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enums.EVENT_TYPE_MARKER_RECORDED && strings.Contains(ev.GetMarkerRecordedEventAttributes().String(), changeID) {
			return true
		}
	}
	return false
}
