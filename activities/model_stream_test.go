package activities

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// streamingAgent is f.agent with stream_calls set.
func (f *modelFixture) streamingAgent(name string) string {
	agent := f.agent(f.model(name))
	f.acts.config.Agents[len(f.acts.config.Agents)-1].StreamCalls = true
	return agent
}

// firstRequest is a run's first model request: the whole conversation and
// the tools, so no query is needed.
func firstRequest(agent string) ModelRequest {
	return ModelRequest{Agent: agent, Delta: travelConversation.Messages, Tools: travelConversation.Tools}
}

func always(t scriptedmodel.Turn) map[string]scriptedmodel.Script {
	return map[string]scriptedmodel.Script{"m": func(openai.ChatCompletionRequest) scriptedmodel.Turn { return t }}
}

var threeCalls = scriptedmodel.Turn{Content: "searching", Calls: []scriptedmodel.Call{
	scriptedmodel.NewCall("search_flights", map[string]any{"from": "NYC", "to": "LAX"}),
	scriptedmodel.NewCall("search_hotels", map[string]any{"city": "Zürich", "nights": 3}),
	scriptedmodel.NewCall("weather", map[string]any{"city": "LAX", "days": []int{1, 2}}),
}}

// A streamed reply assembles to exactly the reply a whole request gives
// (each on a fresh server, so ids match), apart from the input tokens:
// the streamed request's body is longer by its stream fields.
func TestStreamedReplyEqualsWholeReply(t *testing.T) {
	whole := newModelFixture(t, always(threeCalls))
	want, err := whole.call(firstRequest(whole.agent(whole.model("m"))))
	require.NoError(t, err)

	f := newModelFixture(t, always(threeCalls))
	got, err := f.call(firstRequest(f.streamingAgent("m")))
	require.NoError(t, err)

	sent := f.srv.Requests()[0]
	require.True(t, sent.Stream, "stream_calls asks for a stream")
	require.NotNil(t, sent.StreamOptions)
	require.True(t, sent.StreamOptions.IncludeUsage)
	require.False(t, whole.srv.Requests()[0].Stream)

	require.Len(t, got.ToolCalls, 3)
	require.Positive(t, got.InputTokens, "usage comes from the stream's usage chunk")
	require.Positive(t, got.OutputTokens)
	got.InputTokens = want.InputTokens
	require.Equal(t, *want, *got)
	// Both recorded alike: the finish reason "tool_calls" is left out of a
	// reply with calls (compactReply).
	require.Empty(t, got.FinishReason)
}

// The streamed reply's conversation is cached as a whole reply's is, so
// the next request needs no query.
func TestStreamedReplyIsCached(t *testing.T) {
	f := newModelFixture(t, always(threeCalls))
	agent := f.streamingAgent("m")
	reply, err := f.call(firstRequest(agent))
	require.NoError(t, err)
	_, err = f.call(ModelRequest{Agent: agent, Base: len(travelConversation.Messages) + 1, AfterReply: reply.ReplyID,
		Delta: []Message{{Role: "tool", ToolCallID: reply.ToolCalls[0].ID, Content: `{"ok":true}`}}})
	require.NoError(t, err, "no query is expected: the gomock querier fails the test on one")
	require.Len(t, f.srv.Requests()[1].Messages[2].ToolCalls, 3)
}

func TestStreamEndedEarlyIsRetried(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamEndsEarly
	f := newModelFixture(t, always(turn))
	_, err := f.call(firstRequest(f.streamingAgent("m")))
	ae := requireClass(t, err, ModelUnavailableError, true)
	require.Contains(t, ae.Error(), `model "m"`)
	require.Contains(t, ae.Error(), "the stream ended without a finish reason, after")
	require.Contains(t, ae.Error(), "1 tool calls", "says how far it got")
}

func TestStreamRepeatedIndexIsRetried(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamRepeatsIndex
	f := newModelFixture(t, always(turn))
	_, err := f.call(firstRequest(f.streamingAgent("m")))
	ae := requireClass(t, err, ModelUnavailableError, true)
	require.Contains(t, ae.Error(), `tool call index 0 came again with id "call_repeated_chatcmpl-scripted-1" after "call_1_0"`)
}

// Arguments that never become JSON reach the workflow verbatim, as in a
// whole reply (TestCallModelToolCallArgumentsVerbatim): repair is the
// workflow's.
func TestStreamedInvalidArgumentsPassedOn(t *testing.T) {
	turn := scriptedmodel.CallsTurn(
		scriptedmodel.Call{Name: "book_flight", Args: `{"flight_id": "UA1", oops`},
		scriptedmodel.Call{Name: "noop", Args: ``},
	)
	f := newModelFixture(t, always(turn))
	reply, err := f.call(firstRequest(f.streamingAgent("m")))
	require.NoError(t, err)
	require.Equal(t, []ToolCall{
		{ID: "call_1_0", Name: "book_flight", Args: `{"flight_id": "UA1", oops`},
		{ID: "call_1_1", Name: "noop", Args: ``},
	}, reply.ToolCalls)
}

// A server that refuses streaming gets a whole request for the same reply.
func TestStreamRefusedFallsBackToWholeReply(t *testing.T) {
	turn := threeCalls
	turn.NoStream = true
	f := newModelFixture(t, always(turn))
	reply, err := f.call(firstRequest(f.streamingAgent("m")))
	require.NoError(t, err)
	reqs := f.srv.Requests()
	require.Len(t, reqs, 2)
	require.True(t, reqs[0].Stream)
	require.False(t, reqs[1].Stream, "the fallback asks for a whole reply")
	require.Nil(t, reqs[1].StreamOptions)
	require.Len(t, reply.ToolCalls, 3)
	require.Equal(t, "call_2_0", reply.ToolCalls[0].ID, "the reply of the whole request")
}

// Other errors of a streamed request are classed as a whole request's.
func TestStreamRequestErrorsClassedAsWhole(t *testing.T) {
	f := newModelFixture(t, always(scriptedmodel.Fail(401, "Incorrect API key")))
	_, err := f.call(firstRequest(f.streamingAgent("m")))
	requireClass(t, err, ModelRejectedError, false)
	require.Equal(t, 1, f.srv.RequestCount(), "a 401 is not mistaken for a refusal to stream")

	g := newModelFixture(t, always(scriptedmodel.Fail(503, "overloaded")))
	_, err = g.call(firstRequest(g.streamingAgent("m")))
	requireClass(t, err, ModelUnavailableError, true)
}

// recordBeats records the model activity's heartbeat details; the
// function it gives reads them so far.
func recordBeats(f *modelFixture) func() []signals.StreamProgress {
	var mu sync.Mutex
	var beats []signals.StreamProgress
	f.env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var p signals.StreamProgress
		if details.Get(&p) == nil {
			mu.Lock()
			beats = append(beats, p)
			mu.Unlock()
		}
	})
	return func() []signals.StreamProgress {
		mu.Lock()
		defer mu.Unlock()
		return append([]signals.StreamProgress(nil), beats...)
	}
}

// The activity heartbeats while the reply streams, with how far it got.
func TestStreamHeartbeats(t *testing.T) {
	turn := threeCalls
	f := newModelFixture(t, always(turn))
	beats := recordBeats(f)
	_, err := f.call(firstRequest(f.streamingAgent("m")))
	require.NoError(t, err)
	require.NotEmpty(t, beats(), "the first heartbeat is sent at once; later ones may be batched")
	require.Positive(t, beats()[0].Chunks)
}

// A whole-reply agent never heartbeats from the model activity.
func TestWholeReplyDoesNotStream(t *testing.T) {
	f := newModelFixture(t, always(threeCalls))
	var beats atomic.Int32
	f.env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	_, err := f.call(firstRequest(f.agent(f.model("m"))))
	require.NoError(t, err)
	require.Zero(t, beats.Load())
	require.False(t, f.srv.Requests()[0].Stream)
}

// A streamed reply's heartbeats name its node and carry the text so far,
// for followers of the run.
func TestStreamHeartbeatsCarryTheTextSoFar(t *testing.T) {
	turn := scriptedmodel.Turn{Content: "Hello there, traveller", ContentPieces: 3}
	f := newModelFixture(t, always(turn))
	beats := recordBeats(f)
	req := firstRequest(f.streamingAgent("m"))
	req.Node = "n3"
	_, err := f.call(req)
	require.NoError(t, err)
	got := beats()
	require.NotEmpty(t, got)
	for _, b := range got {
		require.Equal(t, "n3", b.Node)
		require.True(t, strings.HasPrefix(turn.Content, b.Text), "%q is the reply so far", b.Text)
	}
	require.Equal(t, int32(1), got[0].Attempt)
	// The test environment, like the SDK, passes on only the first beat of
	// a burst; the real-server follower test reads the text the rest carry.
}

// A heartbeat's text is cut to MaxLiveText, never inside a character.
func TestLiveTextIsCutBetweenCharacters(t *testing.T) {
	require.Equal(t, "ab", policies.CutText("abü", 3), "ü is two bytes: cut before it")
	require.Equal(t, "abü", policies.CutText("abü", 4))
	require.Equal(t, "", policies.CutText("ü", 1))
}

// The beat of an assembly carries the content so far under the node, and
// none without a node to name.
func TestStreamBeatCarriesContentSoFar(t *testing.T) {
	var asm streamAssembly
	for _, piece := range []string{"Hel", "lo"} {
		require.NoError(t, asm.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: piece}}}}))
	}
	require.Equal(t, signals.StreamProgress{Chunks: 2, ContentBytes: 5, Node: "n3", Attempt: 2, Text: "Hello"}, asm.heartbeat("n3", 2))
	require.Equal(t, signals.StreamProgress{Chunks: 2, ContentBytes: 5}, asm.heartbeat("", 2))
}
