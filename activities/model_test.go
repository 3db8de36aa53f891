package activities

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.uber.org/mock/gomock"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
)

// payloadValue is a query answer as the Temporal client hands it over:
// payloads of the default data converter.
type payloadValue struct{ payloads *commonpb.Payloads }

func (v payloadValue) HasValue() bool { return v.payloads != nil }
func (v payloadValue) Get(ptr any) error {
	return converter.GetDefaultDataConverter().FromPayloads(v.payloads, ptr)
}

func encoded(t *testing.T, v any) converter.EncodedValue {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayloads(v)
	require.NoError(t, err)
	return payloadValue{p}
}

// modelFixture is CallModel against a scripted OpenAI-compatible server on
// loopback, with the Temporal client's query mocked.
type modelFixture struct {
	t       *testing.T
	srv     *scriptedmodel.Server
	querier *MockQuerier
	acts    *Activities
	env     *testsuite.TestActivityEnvironment
}

func newModelFixture(t *testing.T, scripts map[string]scriptedmodel.Script, opts ...scriptedmodel.Option) *modelFixture {
	t.Helper()
	srv, err := scriptedmodel.Start("127.0.0.1:0", scripts, "", append([]scriptedmodel.Option{scriptedmodel.WithLogf(t.Logf)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	q := NewMockQuerier(gomock.NewController(t))
	acts := New(&config.File{}, q)
	acts.getenv = func(string) (string, bool) { return "", false }
	return &modelFixture{t: t, srv: srv, querier: q, acts: acts, env: newActivityEnv(t, acts)}
}

func (f *modelFixture) model(name string) config.Model {
	return config.Model{BaseURL: f.srv.URL(), Name: name, Timeout: config.Duration(10 * time.Second)}
}

// agent puts an agent whose model is m into the worker's config and
// answers its name: requests name their agent, as the workflow's do.
func (f *modelFixture) agent(m config.Model) string {
	name := fmt.Sprintf("agent-%d", len(f.acts.config.Agents))
	f.acts.config.Agents = append(f.acts.config.Agents, config.Agent{Name: name, Model: &m})
	return name
}

// expectQuery expects the run to be queried times times, answering mc:
// the whole conversation, as a run of any version answers a small one.
func (f *modelFixture) expectQuery(mc ModelContext, times int) {
	f.querier.EXPECT().
		QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{}).
		Return(encoded(f.t, mc), nil).
		Times(times)
}

func (f *modelFixture) call(req ModelRequest) (*ModelReply, error) {
	f.t.Helper()
	val, err := f.env.ExecuteActivity(f.acts.CallModel, req)
	if err != nil {
		return nil, err
	}
	var r ModelReply
	require.NoError(f.t, val.Get(&r))
	return &r, nil
}

// sent are the role: content lines of a request the server received.
func sent(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		line := m.Role + ": " + m.Content
		for _, tc := range m.ToolCalls {
			line += " [" + tc.ID + " " + tc.Function.Name + " " + tc.Function.Arguments + "]"
		}
		if m.ToolCallID != "" {
			line += " (for " + m.ToolCallID + ")"
		}
		out = append(out, line)
	}
	return out
}

var travelConversation = ModelContext{
	Messages: []Message{
		{Role: "system", Content: "You are a travel agent."},
		{Role: "user", Content: "Book NYC to LAX on 2024-01-15"},
	},
	Tools: []ToolDef{{
		Name:        "search_flights",
		Description: "Search flights.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"from":{"type":"string"},"_outputPath":{"type":"string"}}}`),
	}},
}

func travelScript() scriptedmodel.Script {
	return scriptedmodel.Sequence(
		scriptedmodel.CallTurn("search_flights", map[string]string{"from": "NYC"}),
		scriptedmodel.Reply("booked UA123"),
	)
}

// The first request of a run misses the cache: the conversation comes from
// querying the run, and is sent as the run answered it.
func TestCallModelFirstRequestQueriesTheRun(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.expectQuery(travelConversation, 1)

	reply, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 0, Delta: travelConversation.Messages})
	require.NoError(t, err)
	// The server's usage is carried (the test double estimates it; its
	// own tests check how), then left out of the comparison.
	require.Positive(t, reply.InputTokens)
	require.Positive(t, reply.OutputTokens)
	reply.InputTokens, reply.OutputTokens = 0, 0
	// As the history records it: named by the activity's id and attempt,
	// without the finish reason the calls imply, the provider's response
	// id or model (the chat span reports those).
	require.Equal(t, &ModelReply{
		ReplyID:   "0#1",
		ToolCalls: []ToolCall{{ID: "call_1_0", Name: "search_flights", Args: `{"from":"NYC"}`}},
	}, reply)

	reqs := f.srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "travel", reqs[0].Model)
	require.Equal(t, []string{"system: You are a travel agent.", "user: Book NYC to LAX on 2024-01-15"}, sent(reqs[0]))
	require.Len(t, reqs[0].Tools, 1)
	require.Equal(t, "search_flights", reqs[0].Tools[0].Function.Name)
	require.Equal(t, "Search flights.", reqs[0].Tools[0].Function.Description)
	params, err := json.Marshal(reqs[0].Tools[0].Function.Parameters)
	require.NoError(t, err)
	require.JSONEq(t, string(travelConversation.Tools[0].Parameters), string(params))
	require.False(t, reqs[0].Stream)
}

// A request whose Base and AfterReply match the cached conversation does
// not query the run: the server gets the cached messages, the last reply
// and the delta.
func TestCallModelCacheHitSendsCachedMessagesPlusDelta(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.expectQuery(travelConversation, 1) // only the first request

	first, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Delta: travelConversation.Messages})
	require.NoError(t, err)

	toolMsg := Message{Role: "tool", ToolCallID: "call_1_0", Content: `{"flights":[{"id":"UA123"}]}`}
	second, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: first.ReplyID, Delta: []Message{toolMsg}})
	require.NoError(t, err)
	require.Equal(t, "booked UA123", second.Content)
	require.Equal(t, "1#1", second.ReplyID)
	require.Equal(t, "stop", second.FinishReason, "kept for a reply without calls")
	require.Empty(t, second.ToolCalls)

	reqs := f.srv.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{
		"system: You are a travel agent.",
		"user: Book NYC to LAX on 2024-01-15",
		`assistant:  [call_1_0 search_flights {"from":"NYC"}]`,
		`tool: {"flights":[{"id":"UA123"}]} (for call_1_0)`,
	}, sent(reqs[1]))
	require.Len(t, reqs[1].Tools, 1, "the tools come from the cache too")

	// The cache now ends with the second reply: a third request after it
	// is a hit as well.
	_, err = f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 5, AfterReply: second.ReplyID,
		Delta: []Message{{Role: "user", Content: "thanks"}}})
	require.NoError(t, err)
	reqs = f.srv.Requests()
	require.Len(t, reqs[2].Messages, 6)
	require.Equal(t, "assistant: booked UA123", sent(reqs[2])[4])
	require.Equal(t, "user: thanks", sent(reqs[2])[5])
}

// A cached conversation that is not exactly the run's (another last reply,
// say a timed-out attempt the run never recorded, or another length) is
// not trusted: the run is queried again.
func TestCallModelCacheMismatchQueriesAgain(t *testing.T) {
	for name, req := range map[string]ModelRequest{
		"other reply": {Base: 3, AfterReply: "0#2"},
		"other base":  {Base: 4, AfterReply: "0#1"},
		"no reply":    {Base: 3},
	} {
		t.Run(name, func(t *testing.T) {
			f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
			f.expectQuery(travelConversation, 1)
			first, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Delta: travelConversation.Messages})
			require.NoError(t, err)
			require.Equal(t, "0#1", first.ReplyID)

			runs := ModelContext{Messages: append(append([]Message(nil), travelConversation.Messages...),
				Message{Role: "assistant", Content: "from the run"},
				Message{Role: "user", Content: "go on"}), Tools: travelConversation.Tools}
			f.expectQuery(runs, 1)
			req.Agent = f.agent(f.model("travel"))
			req.Delta = []Message{{Role: "user", Content: "must not be appended to the run's answer"}}
			_, err = f.call(req)
			require.NoError(t, err)

			reqs := f.srv.Requests()
			require.Len(t, reqs, 2)
			require.Equal(t, []string{
				"system: You are a travel agent.",
				"user: Book NYC to LAX on 2024-01-15",
				"assistant: from the run",
				"user: go on",
			}, sent(reqs[1]))
		})
	}
}

// Tool calls reach the workflow with their arguments verbatim, even when
// they are not JSON: the workflow, not the activity, checks them.
func TestCallModelToolCallArgumentsVerbatim(t *testing.T) {
	turn := scriptedmodel.CallsTurn(
		scriptedmodel.Call{Name: "book_flight", Args: `{"flight_id": "UA1", oops`},
		scriptedmodel.Call{Name: "search_flights", Args: `{ "to" : "LAX",  "from":"NYC" }`},
		scriptedmodel.Call{Name: "noop", Args: ``},
	)
	turn.Content = "working on it"
	f := newModelFixture(t, map[string]scriptedmodel.Script{"m": func(openai.ChatCompletionRequest) scriptedmodel.Turn { return turn }})
	f.expectQuery(travelConversation, 1)

	reply, err := f.call(ModelRequest{Agent: f.agent(f.model("m"))})
	require.NoError(t, err)
	require.Equal(t, "working on it", reply.Content)
	require.Equal(t, []ToolCall{
		{ID: "call_1_0", Name: "book_flight", Args: `{"flight_id": "UA1", oops`},
		{ID: "call_1_1", Name: "search_flights", Args: `{ "to" : "LAX",  "from":"NYC" }`},
		{ID: "call_1_2", Name: "noop", Args: ``},
	}, reply.ToolCalls)

	// Sent back in the next request as they came.
	_, err = f.call(ModelRequest{Agent: f.agent(f.model("m")), Base: 3, AfterReply: reply.ReplyID,
		Delta: []Message{{Role: "tool", ToolCallID: "call_1_0", Content: `{"error":"arguments are not JSON"}`}}})
	require.NoError(t, err)
	next := f.srv.Requests()[1].Messages[2]
	require.Len(t, next.ToolCalls, 3)
	require.Equal(t, `{"flight_id": "UA1", oops`, next.ToolCalls[0].Function.Arguments)
}

// Provider failures are classed for Temporal: retryable ModelUnavailable
// (with Retry-After as the next delay) or non-retryable ModelRejected.
func TestCallModelErrorClasses(t *testing.T) {
	cases := []struct {
		name      string
		model     string
		fail      *scriptedmodel.Turn
		typ       string
		retryable bool
		delay     time.Duration
		message   string
	}{
		{"503 with Retry-After", "travel", &scriptedmodel.Turn{Status: 503, RetryAfter: 3 * time.Second}, ModelUnavailableError, true, 3 * time.Second, "HTTP 503"},
		{"429 with Retry-After", "travel", &scriptedmodel.Turn{Status: 429, RetryAfter: time.Second}, ModelUnavailableError, true, time.Second, "HTTP 429"},
		{"429 without Retry-After", "travel", &scriptedmodel.Turn{Status: 429}, ModelUnavailableError, true, 0, "HTTP 429"},
		{"500", "travel", &scriptedmodel.Turn{Status: 500, Message: "kaboom"}, ModelUnavailableError, true, 0, "kaboom"},
		{"408", "travel", &scriptedmodel.Turn{Status: 408}, ModelUnavailableError, true, 0, "HTTP 408"},
		{"409", "travel", &scriptedmodel.Turn{Status: 409}, ModelUnavailableError, true, 0, "HTTP 409"},
		{"401 bad key", "travel", &scriptedmodel.Turn{Status: 401, Message: "Incorrect API key"}, ModelRejectedError, false, 0, "Incorrect API key"},
		{"403", "travel", &scriptedmodel.Turn{Status: 403}, ModelRejectedError, false, 0, "HTTP 403"},
		{"400 bad request", "travel", &scriptedmodel.Turn{Status: 400, Message: "bad tools"}, ModelRejectedError, false, 0, "bad tools"},
		{"404 unknown model", "gpt-nonexistent", nil, ModelRejectedError, false, 0, "HTTP 404"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
			f.expectQuery(travelConversation, 1)
			if tc.fail != nil {
				f.srv.FailNextTurn(1, *tc.fail)
			}
			_, err := f.call(ModelRequest{Agent: f.agent(f.model(tc.model))})
			ae := requireClass(t, err, tc.typ, tc.retryable)
			require.Equal(t, tc.delay, ae.NextRetryDelay())
			require.Contains(t, ae.Error(), tc.message)
			require.Contains(t, ae.Error(), `model "`+tc.model+`" at `+f.srv.URL())
			require.Equal(t, 1, f.srv.RequestCount(), "go-openai must not retry by itself")
		})
	}
}

// A failed request leaves no trace in the cache: the retry queries the run
// again and then succeeds.
func TestCallModelFailureDoesNotCache(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.expectQuery(travelConversation, 2)
	f.srv.FailNext(1, 503)
	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
	requireClass(t, err, ModelUnavailableError, true)
	reply, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
	require.NoError(t, err)
	require.Len(t, reply.ToolCalls, 1)
}

// No answer at all (nothing listening, or too slow) is retryable.
func TestCallModelTransportFailuresAreRetryable(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
		f.expectQuery(travelConversation, 1)
		m := f.model("travel")
		m.BaseURL = "http://" + refusedAddr(t) + "/v1"
		_, err := f.call(ModelRequest{Agent: f.agent(m)})
		ae := requireClass(t, err, ModelUnavailableError, true)
		require.Zero(t, ae.NextRetryDelay())
	})
	t.Run("timeout", func(t *testing.T) {
		f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
		f.expectQuery(travelConversation, 1)
		f.srv.FailNextTurn(1, scriptedmodel.Turn{Delay: 5 * time.Second, Content: "too late"})
		m := f.model("travel")
		m.Timeout = config.Duration(200 * time.Millisecond)
		start := time.Now()
		_, err := f.call(ModelRequest{Agent: f.agent(m)})
		require.Less(t, time.Since(start), 3*time.Second)
		requireClass(t, err, ModelUnavailableError, true)
	})
}

// A query that fails is an ordinary (retryable) error naming the query;
// without a client a cache miss cannot be served at all.
func TestCallModelQueryFailures(t *testing.T) {
	t.Run("query error", func(t *testing.T) {
		f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
		f.querier.EXPECT().QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{}).
			Return(nil, errors.New("workflow not found")).Times(1)
		_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
		ae := appError(t, err)
		require.False(t, ae.NonRetryable())
		require.Contains(t, ae.Error(), "query "+signals.QueryModelContext)
		require.Contains(t, ae.Error(), "workflow not found")
		require.Zero(t, f.srv.RequestCount())
	})
	t.Run("undecodable answer", func(t *testing.T) {
		f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
		f.querier.EXPECT().QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{}).
			Return(encoded(t, "not a conversation"), nil).Times(1)
		_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
		require.ErrorContains(t, err, "decode")
		require.Zero(t, f.srv.RequestCount())
	})
	t.Run("no client", func(t *testing.T) {
		f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
		f.acts.querier = nil
		_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
		require.ErrorContains(t, err, "not cached and no Temporal client to query the run")
	})
}

// A run that answers the context query with a failure (a run of code
// without the query) fails the request for good; a server that cannot be
// reached is retried.
func TestCallModelContextQueryFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		err       error
		retryable bool
	}{
		"query failed":  {serviceerror.NewQueryFailed("unknown queryType unstuck.model_context. KnownQueryTypes=[]"), false},
		"not reachable": {serviceerror.NewUnavailable("connection refused"), true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
			f.querier.EXPECT().QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{}).Return(nil, tc.err)
			_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: "r1"})
			require.Error(t, err)
			var ae *temporal.ApplicationError
			if tc.retryable {
				require.False(t, errors.As(err, &ae) && ae.NonRetryable(), "error: %v", err)
				return
			}
			require.ErrorAs(t, err, &ae)
			require.Equal(t, "ModelContextUnavailable", ae.Type())
			require.True(t, ae.NonRetryable())
		})
	}
}

// A reply over Temporal's payload limit could never be recorded: the
// request fails for good, with the size, instead of being retried.
func TestCallModelRefusesAReplyOverThePayloadLimit(t *testing.T) {
	huge := scriptedmodel.Sequence(scriptedmodel.CallTurn("search_flights", map[string]string{"from": strings.Repeat("x", 1600<<10)}))
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": huge})
	f.expectQuery(travelConversation, 1)
	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
	ae := requireClass(t, err, ModelRejectedError, false)
	require.Contains(t, ae.Message(), "the reply is 1600 KiB, over the 1536 KiB")
}

// Only the finish reason the calls imply is left out of a recorded reply:
// "length" with calls is how the run finds a call cut off (longer_reply),
// and a reply without calls keeps its reason for the model to be told.
func TestCompactReplyLeavesOutOnlyTheImpliedFinishReason(t *testing.T) {
	call := []ToolCall{{ID: "c", Name: "t", Args: "{}"}}
	for _, c := range []struct {
		calls  []ToolCall
		finish string
		want   string
	}{
		{call, "tool_calls", ""},
		{call, "length", "length"},
		{call, "stop", "stop"},
		{nil, "tool_calls", "tool_calls"},
		{nil, "stop", "stop"},
		{nil, "content_filter", "content_filter"},
	} {
		r := &ModelReply{ToolCalls: c.calls, FinishReason: c.finish}
		compactReply(r)
		require.Equal(t, c.want, r.FinishReason, "%d calls, %q", len(c.calls), c.finish)
	}
	compactReply(nil) // a failed request has no reply
}
