package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// chatAgent is a conversation on the bench's scripted model: each turn
// answers with final_output at once.
const chatAgent = `  - { name: chat, instructions: Chat., tools: [noop], conversation: { idle_timeout: 24h } }`

// idleWindow is how long BenchmarkConversationIdle watches a waiting
// conversation.
const idleWindow = 60 * time.Second

// BenchmarkConversationIdle (issue 41): what a conversation waiting for its
// next message costs, and what one turn adds. A chat run answers its task
// and waits (idle_timeout 24h); its history is read as the wait begins
// and idleWindow later (reported per idle hour: events, bytes, workflow
// tasks); then one message is sent and answered (events and bytes of the
// turn, and the time from the update to the answer's output node).
func BenchmarkConversationIdle(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		id := fmt.Sprintf("bench-chat-%d", time.Now().UnixNano())
		_, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue, TypedSearchAttributes: workflows.StartAttributes("chat")},
			workflows.WorkflowName, workflows.AgentInput{Agent: "chat", Task: "steps=0"})
		if err != nil {
			b.Fatal(err)
		}
		awaitChat(b, id, 1)
		events0, bytes0, tasks0 := historySize(b, id)
		time.Sleep(idleWindow)
		events1, bytes1, tasks1 := historySize(b, id)
		perHour := float64(time.Hour) / float64(idleWindow)
		b.ReportMetric(float64(events1-events0)*perHour, "idle-events/hour")
		b.ReportMetric(float64(bytes1-bytes0)*perHour, "idle-bytes/hour")
		b.ReportMetric(float64(tasks1-tasks0)*perHour, "idle-workflow-tasks/hour")

		sent := time.Now()
		h, err := devClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: signals.Message,
			Args: []any{signals.MessageRequest{Text: "steps=0"}}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		awaitChat(b, id, 2)
		answered := time.Since(sent)
		events2, bytes2, _ := historySize(b, id)
		b.ReportMetric(float64(events2-events1), "turn-events")
		b.ReportMetric(float64(bytes2-bytes1), "turn-bytes")
		b.ReportMetric(float64(answered.Milliseconds()), "message-to-answer-ms")
		_ = devClient.TerminateWorkflow(ctx, id, "", "benchmark done")
	}
}

// awaitChat waits until the chat run has outputs answers and waits for
// the next message.
func awaitChat(b *testing.B, id string, outputs int) {
	b.Helper()
	if !chatAnswered(id, outputs, time.Minute) {
		b.Fatalf("chat %s: no %d outputs", id, outputs)
	}
}

// chatAnswered reports whether, within d, the chat run has outputs
// answers and waits for the next message.
func chatAnswered(id string, outputs int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var st signals.Status
		if v, err := devClient.QueryWorkflow(context.Background(), id, "", signals.QueryStatus); err == nil && v.Get(&st) == nil && st.Phase == signals.PhaseAwaitingUser {
			if tr, ok := chatTrace(id); ok && len(nodesOfKind(tr, signals.KindOutput)) >= outputs {
				return true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// chatTrace is the trace of a chat run's latest generation.
func chatTrace(id string) (signals.Trace, bool) {
	var tr signals.Trace
	v, err := devClient.QueryWorkflow(context.Background(), id, "", signals.QueryTrace)
	return tr, err == nil && v.Get(&tr) == nil
}

// nodesOfKind are a trace's nodes of kind k.
func nodesOfKind(tr signals.Trace, k signals.NodeKind) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}

// repeatedRequest is the task (and every message) of
// BenchmarkConversationRepeatedRequest.
const repeatedRequest = "check my balance"

// repeatedTurns is how many times the person asks.
const repeatedTurns = 100

// repeatedRequestTurn answers the person's latest request with one noop
// call, the same each turn, then with final_output.
func repeatedRequestTurn(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	last := 0
	for i, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser && m.Content == repeatedRequest {
			last = i
		}
	}
	for _, m := range req.Messages[last+1:] {
		if m.Role == openai.ChatMessageRoleTool {
			return scriptedmodel.CallTurn("final_output", map[string]any{"balance": 3})
		}
	}
	return scriptedmodel.CallTurn("noop", map[string]any{"account": "main"})
}

// BenchmarkConversationRepeatedRequest (issue 50): a person asks the same
// thing ("check my balance") for repeatedTurns turns of a chat, and the
// model makes the same call each turn and answers. A repeated request is
// no loop: it reports the loops and escalations the run met (0), the
// turns answered and the calls run (repeatedTurns each), and the time
// from a message to its answer. A turn not answered within 30 s (the run
// waits for a person at the ladder's human rung, say) ends the count.
func BenchmarkConversationRepeatedRequest(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		id := fmt.Sprintf("bench-repeat-%d", time.Now().UnixNano())
		_, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue, TypedSearchAttributes: workflows.StartAttributes("chat")},
			workflows.WorkflowName, workflows.AgentInput{Agent: "chat", Task: repeatedRequest})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		answered := 0
		var perTurn []float64
		if chatAnswered(id, 1, time.Minute) {
			answered = 1
		}
		for turn := 2; answered == turn-1 && turn <= repeatedTurns; turn++ {
			sent := time.Now()
			sendChatMessage(b, id, repeatedRequest)
			if chatAnswered(id, turn, 30*time.Second) {
				answered = turn
				perTurn = append(perTurn, float64(time.Since(sent).Milliseconds()))
			}
		}
		total := time.Since(start)
		var st signals.Status
		if v, err := devClient.QueryWorkflow(ctx, id, "", signals.QueryStatus); err != nil || v.Get(&st) != nil {
			b.Fatalf("status of %s: %v", id, err)
		}
		tr, _ := chatTrace(id)
		calls := 0
		for _, n := range nodesOfKind(tr, signals.KindCall) {
			if n.Tool == "noop" && n.Status == signals.StatusCompleted {
				calls++
			}
		}
		b.ReportMetric(float64(len(st.Loops)+st.LoopsDropped), "loops")
		b.ReportMetric(float64(len(nodesOfKind(tr, signals.KindEscalation))), "escalations")
		b.ReportMetric(float64(answered), "turns-answered")
		b.ReportMetric(float64(calls), "calls-run")
		b.ReportMetric(float64(st.Generation), "generations")
		b.ReportMetric(total.Seconds(), "total-s")
		if len(perTurn) > 0 {
			b.ReportMetric(median64(perTurn), "message-to-answer-ms")
		}
		if answered < repeatedTurns {
			b.Logf("%s: turn %d not answered in 30 s; the run is %s, rungs taken: %d", id, answered+1, st.Phase, len(nodesOfKind(tr, signals.KindEscalation)))
		}
		if tr.Archived != nil {
			b.Logf("%s: %d nodes archived: calls-run counts the carried ones", id, tr.Archived.Nodes)
		}
		_ = devClient.TerminateWorkflow(ctx, id, "", "benchmark done")
	}
}

// sendChatMessage sends a message update, again while the run says it is
// continuing as new.
func sendChatMessage(b *testing.B, id, text string) {
	b.Helper()
	for range 50 {
		h, err := devClient.UpdateWorkflow(context.Background(), client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: signals.Message,
			Args: []any{signals.MessageRequest{Text: text}}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(context.Background(), nil)
		}
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), signals.RunClosing) {
			b.Fatalf("message to %s: %v", id, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("message to %s: refused 50 times", id)
}

// historySize is a run's history: events, bytes, workflow tasks.
func historySize(b *testing.B, id string) (events, bytes, tasks int) {
	b.Helper()
	eachEvent(b, id, "", func(ev *historypb.HistoryEvent) {
		events++
		bytes += proto.Size(ev)
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			tasks++
		}
	})
	return events, bytes, tasks
}
