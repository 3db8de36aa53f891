package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/converter"
)

// workflowMetadataQuery is the SDK's built-in query the Web UI reads the
// current details with.
const workflowMetadataQuery = "__temporal_workflow_metadata"

// A run started by `unstuck run` reads well in the Temporal Web UI: the
// static summary and details name the agent and the task, each activity
// and timer has a summary (the tool call with its arguments, the model
// step, the approval wait), and the current details show the call waiting
// for approval and the exact command that answers it.
//
// Beside make test's other layers it can take over 30 s: the first tests
// to call binaries wait for its one build of the worker and the CLI.
func TestWebUIMetadata(t *testing.T) {
	t.Parallel()
	unstuck := filepath.Join(binaries(t), "unstuck")
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, map[string]any{"booked": true})
	})
	s := bookerStack(t, "webui", tools.URL)
	id := fmt.Sprintf("webui-%d", time.Now().UnixNano())
	out, err := exec.Command(unstuck, "run", "--agent", "booker", "--task", "book a seat by the window",
		"--input", `{"seat_class":"economy","passenger":"Ada"}`, "--id", id, "--task-queue", s.queue,
		"--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	run := s.client.GetWorkflow(context.Background(), id, "")
	ctx := context.Background()
	dc := converter.GetDefaultDataConverter()
	text := func(p *commonpb.Payload) string {
		if p == nil {
			return ""
		}
		var s string
		require.NoError(t, dc.FromPayload(p, &s))
		return s
	}

	// The static summary and details, as the Web UI reads them.
	desc, err := s.client.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	md := desc.GetExecutionConfig().GetUserMetadata()
	require.Equal(t, "booker: book a seat by the window", text(md.GetSummary()))
	details := text(md.GetDetails())
	require.Contains(t, details, "**agent:** `booker`")
	require.Contains(t, details, "**input keys:** `passenger`, `seat_class`")

	// The current details while the call waits for approval.
	call := s.pendingApproval(run)
	var meta sdkpb.WorkflowMetadata
	require.Eventually(t, func() bool {
		v, err := s.client.QueryWorkflow(ctx, id, "", workflowMetadataQuery)
		return err == nil && v.Get(&meta) == nil && meta.GetCurrentDetails() != ""
	}, 10*time.Second, 100*time.Millisecond)
	current := meta.GetCurrentDetails()
	t.Logf("current details:\n%s", current)
	require.Contains(t, current, "**phase:** `awaiting_approval`")
	require.Contains(t, current, "`"+call.CallID+"`: `book(seat=12A)`")
	answer := fmt.Sprintf(`temporal workflow update execute --workflow-id %s --name approve --input '{"call_id":"%s","decision":"approve"}'`, id, call.CallID)
	require.Contains(t, current, answer)

	// The command shown is the one that answers: run it as a shell would.
	sh := exec.Command("sh", "-c", `"$TEMPORAL" `+strings.TrimPrefix(answer, "temporal ")+` --address "$ADDRESS"`)
	sh.Env = append(os.Environ(), "TEMPORAL="+temporalBin, "ADDRESS="+serverAddress)
	out, err = sh.CombinedOutput()
	require.NoError(t, err, string(out))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))

	// Every activity, local activity and timer of the history has its
	// summary.
	var activities, locals, timers []string
	iter := s.client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			activities = append(activities, text(ev.GetUserMetadata().GetSummary()))
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
				locals = append(locals, text(ev.GetUserMetadata().GetSummary()))
			}
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			timers = append(timers, text(ev.GetUserMetadata().GetSummary()))
		}
	}
	require.Equal(t, []string{"model: step 1", "book(seat=12A)", "model: step 2"}, activities)
	require.Equal(t, []string{"resolve agent booker"}, locals)
	require.Equal(t, []string{fmt.Sprintf("wait for approval of %s (book)", call.CallID)}, timers)
}
