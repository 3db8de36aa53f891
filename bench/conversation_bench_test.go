package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

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
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var st signals.Status
		var tr signals.Trace
		if v, err := devClient.QueryWorkflow(context.Background(), id, "", signals.QueryStatus); err == nil && v.Get(&st) == nil && st.Phase == signals.PhaseAwaitingUser {
			if v, err := devClient.QueryWorkflow(context.Background(), id, "", signals.QueryTrace); err == nil && v.Get(&tr) == nil {
				n := 0
				for _, node := range tr.Nodes {
					if node.Kind == signals.KindOutput {
						n++
					}
				}
				if n >= outputs {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatalf("chat %s: no %d outputs", id, outputs)
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
