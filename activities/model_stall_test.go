package activities

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// stallingAgent is a streaming agent of the fixture's model m under the
// stall bounds.
func (f *modelFixture) stallingAgent(name string, firstByte, idle time.Duration) string {
	return f.stallingAgentOf(f.model(name), firstByte, idle)
}

func (f *modelFixture) stallingAgentOf(m config.Model, firstByte, idle time.Duration) string {
	m.Stall = &config.Stall{FirstByte: config.Duration(firstByte), Idle: config.Duration(idle)}
	agent := f.agent(m)
	f.acts.config.Agents[len(f.acts.config.Agents)-1].StreamCalls = true
	return agent
}

// callCut calls the model and says how long the request took to fail;
// the server must have let go of the request by then or soon after (the
// connection closed), well before the model's 10s timeout.
func (f *modelFixture) callCut(agent string) (time.Duration, error) {
	f.t.Helper()
	start := time.Now()
	_, err := f.call(firstRequest(agent))
	took := time.Since(start)
	require.Error(f.t, err)
	require.Eventually(f.t, func() bool { return f.srv.OpenStreams() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the request is cut: its connection closed")
	return took, err
}

// (a) A provider that sends its headers and then nothing is cut at
// first_byte, a retryable ModelStalled saying which deadline and how long.
func TestStreamSilentBeforeItsFirstByteIsCut(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamStallsBeforeFirstByte
	f := newModelFixture(t, always(turn))
	took, err := f.callCut(f.stallingAgent("m", 300*time.Millisecond, 5*time.Second))
	ae := requireClass(t, err, ModelStalledError, true)
	require.Equal(t, `model "m" at `+f.srv.URL()+`: stalled: no byte of the reply 300ms after the request was sent (stall.first_byte)`, ae.Message())
	require.Less(t, took, 10*time.Second, "cut before the model's timeout")
}

// (b) A provider that sends a chunk and then nothing is cut at idle, said
// with how far the reply got. The first byte brings the deadline nearer
// than what was left of first_byte: the cut comes before first_byte.
func TestStreamSilentAfterAChunkIsCut(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamStallsAfterFirstChunk
	f := newModelFixture(t, always(turn))
	took, err := f.callCut(f.stallingAgent("m", 8*time.Second, 300*time.Millisecond))
	ae := requireClass(t, err, ModelStalledError, true)
	require.Equal(t, `model "m" at `+f.srv.URL()+`: stalled: no byte for 300ms (stall.idle), after 1 chunks, 0 bytes of content and 0 tool calls`, ae.Message())
	require.Less(t, took, 8*time.Second, "cut at idle, not at first_byte")
}

// (c) A reply slower in all than both deadlines, whose first byte and
// each next one come within them, is not cut.
func TestStreamSlowButSteadyIsNotCut(t *testing.T) {
	turn := scriptedmodel.Turn{Content: "one two three four five six", ContentPieces: 6, ContentDelay: 250 * time.Millisecond, Delay: 400 * time.Millisecond}
	f := newModelFixture(t, always(turn))
	reply, err := f.call(firstRequest(f.stallingAgent("m", 700*time.Millisecond, 700*time.Millisecond)))
	require.NoError(t, err)
	require.Equal(t, turn.Content, reply.Content)
}

// A server that never answers at all (no headers) is cut at first_byte
// too: the deadline runs from the request, not from the headers.
func TestStreamWithoutHeadersIsCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read whole, the server notices the client leave
		<-r.Context().Done()
	}))
	defer srv.Close()
	f := newModelFixture(t, always(threeCalls))
	m := config.Model{BaseURL: srv.URL + "/v1", Name: "m", Timeout: config.Duration(10 * time.Second)}
	_, err := f.call(firstRequest(f.stallingAgentOf(m, 200*time.Millisecond, time.Second)))
	ae := requireClass(t, err, ModelStalledError, true)
	require.Contains(t, ae.Error(), "no byte of the reply 200ms after the request was sent (stall.first_byte)")
}

// The worker heartbeats while it waits, so a dead worker is found out;
// those beats claim no progress, and do not keep a provider that holds
// the connection open without a byte alive: it is cut at first_byte all
// the same.
func TestHeartbeatsDoNotKeepASilentProviderAlive(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamStallsBeforeFirstByte
	f := newModelFixture(t, always(turn))
	beats := recordBeats(f)
	_, err := f.callCut(f.stallingAgent("m", ModelHeartbeatEvery+time.Second, time.Second))
	requireClass(t, err, ModelStalledError, true)
	require.NotEmpty(t, beats(), "the worker beat while it waited")
	for _, b := range beats() {
		require.Zero(t, b.Chunks, "a beat without a byte claims no progress")
		require.Zero(t, b.ContentBytes)
	}
}

// A stall counts as the model being unavailable in the worker's breaker:
// after its failures in a row, the model is refused without being asked.
func TestStallsOpenTheWorkersModelBreaker(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamStallsBeforeFirstByte
	f := newModelFixture(t, always(turn))
	agent := f.stallingAgent("m", 100*time.Millisecond, time.Second)
	for range config.DefaultFailures {
		_, err := f.call(firstRequest(agent))
		requireClass(t, err, ModelStalledError, true)
	}
	_, err := f.call(firstRequest(agent))
	requireClass(t, err, ModelCircuitOpenError, true)
	require.Equal(t, config.DefaultFailures, f.srv.RequestCount(), "the refused request never reached the model")
}

// A whole (not streamed) reply is bounded by the model's timeout only: a
// wait longer than the stall deadlines is no stall.
func TestWholeReplyHasNoStall(t *testing.T) {
	turn := threeCalls
	turn.Delay = 500 * time.Millisecond
	f := newModelFixture(t, always(turn))
	m := f.model("m")
	m.Stall = &config.Stall{FirstByte: config.Duration(100 * time.Millisecond), Idle: config.Duration(100 * time.Millisecond)}
	reply, err := f.call(firstRequest(f.agent(m)))
	require.NoError(t, err)
	require.Len(t, reply.ToolCalls, 3)
}

// The chat span of a stalled request has the class stalled.
func TestStalledSpanIsClassedStalled(t *testing.T) {
	turn := threeCalls
	turn.Fault = scriptedmodel.StreamStallsAfterFirstChunk
	f := newModelFixture(t, always(turn))
	rec := traced(t, f.acts, f.env)
	_, err := f.call(firstRequest(f.stallingAgent("m", time.Second, 100*time.Millisecond)))
	requireClass(t, err, ModelStalledError, true)
	span, _ := spanNamed(t, rec, "chat m")
	require.Equal(t, StalledClass, attrs(span)["error.type"].AsString())
	require.Equal(t, codes.Error, span.Status().Code)
	require.True(t, strings.Contains(span.Status().Description, "stalled: no byte for 100ms"), span.Status().Description)
	require.Equal(t, "error", errorClass(errors.New("no application error")))
}
