package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func call(i int, id, name, args string) openai.ChatCompletionStreamResponse {
	return delta(openai.ToolCall{Index: idx(i), ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}})
}

// A call is sent the moment its arguments are a whole JSON object, in
// order; a call that ends without valid arguments stops the sending, so
// the run never starts a later call before an earlier one it may not know.
func TestSendFinishedCalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []openai.ChatCompletionStreamResponse
		sent   []int // indexes sent after each chunk, cumulatively
	}{
		{"an object in pieces is sent when whole", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", ""), call(0, "", "", `{"q":`), call(0, "", "", `"x"}`), call(1, "b", "nb", `{}`),
		}, []int{0, 0, 1, 2}},
		{"text that only ends in a brace waits", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `{"q":"}`), call(0, "", "", `"}`),
		}, []int{0, 1}},
		{"arguments that are not an object stop the sending", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `[1]`), call(1, "b", "nb", `{}`), call(2, "c", "nc", `{}`),
		}, []int{0, 0, 0}},
		{"invalid arguments of an earlier call stop the sending", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `{}`), call(1, "b", "nb", `{"q":`), call(2, "c", "nc", `{}`),
		}, []int{1, 1, 1}},
		{"a call without a name waits", []openai.ChatCompletionStreamResponse{
			call(0, "a", "", `{}`), call(0, "", "na", ``),
		}, []int{0, 1}},
		{"final_output and handoff are settled after the step's calls: not sent", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `{}`), call(1, "b", "final_output", `{}`), call(2, "c", "nc", `{}`),
		}, []int{1, 1, 1}},
		{"handoff, likewise", []openai.ChatCompletionStreamResponse{
			call(0, "a", "handoff", `{}`), call(1, "b", "nb", `{}`),
		}, []int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s streamAssembly
			var sent []int
			send := func(i int, c ToolCall) {
				require.Equal(t, len(sent), i, "sent in order")
				require.NotEmpty(t, c.ID)
				sent = append(sent, i)
			}
			for k, ch := range tc.chunks {
				require.NoError(t, s.add(ch))
				s.sendFinished(send)
				require.Len(t, sent, tc.sent[k], "after chunk %d", k)
			}
		})
	}
}

// Without a run to send to, nothing is sent and nothing breaks.
func TestSendFinishedWithoutSender(t *testing.T) {
	var s streamAssembly
	require.NoError(t, s.add(call(0, "a", "na", `{}`)))
	s.sendFinished(nil)
	require.Zero(t, s.sent)
}

// recordingSignaler is the Temporal client's SignalWorkflow, recorded (and
// failing every send when fail is set).
type recordingSignaler struct {
	mu   sync.Mutex
	sent []StreamedCall
	fail bool
}

func (r *recordingSignaler) SignalWorkflow(_ context.Context, workflowID, runID, name string, arg any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if workflowID != testWorkflowID || runID != testRunID || name != signals.StreamedCall {
		return fmt.Errorf("signal %s to %s/%s: not the calling run", name, workflowID, runID)
	}
	r.sent = append(r.sent, arg.(StreamedCall))
	if r.fail {
		return errors.New("unavailable")
	}
	return nil
}

// The model activity sends its own run each finished call of a streamed
// reply, in order, under the request node; never past calls_per_reply,
// never after a send failed, never without a request node to send to.
func TestStreamedCallsAreSentToTheRun(t *testing.T) {
	slow := threeCalls
	slow.CallDelay = 20 * time.Millisecond
	for _, tc := range []struct {
		name     string
		streamTo string
		perReply int
		fail     bool
		want     []int
	}{
		{"every call, in order", "n2", 0, false, []int{0, 1, 2}},
		{"within calls_per_reply", "n2", 2, false, []int{0, 1}},
		{"none after a failed send", "n2", 0, true, []int{0}},
		{"none without a request node", "", 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newModelFixture(t, always(slow))
			agent := f.streamingAgent("m")
			f.acts.config.Agents[len(f.acts.config.Agents)-1].Policies.Limits.CallsPerReply = tc.perReply
			sig := &recordingSignaler{fail: tc.fail}
			f.acts.signaler = sig
			req := firstRequest(agent)
			req.StreamTo = tc.streamTo
			reply, err := f.call(req)
			require.NoError(t, err, "a call that could not be sent does not fail the reply")
			require.Len(t, reply.ToolCalls, 3)
			var got []int
			for _, sc := range sig.sent {
				require.Equal(t, tc.streamTo, sc.Request)
				require.Equal(t, reply.ToolCalls[sc.Index], sc.Call, "the call sent is the reply's")
				got = append(got, sc.Index)
			}
			require.Equal(t, tc.want, got)
		})
	}
}
