package activities

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.uber.org/mock/gomock"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A 429 without Retry-After waits for OpenAI's x-ratelimit-reset-*
// headers (the later of the two); other statuses do not.
func TestRateLimitResetHeadersSetTheNextRetry(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Reset-Requests", "1s")
		w.Header().Set("X-Ratelimit-Reset-Tokens", "6m0s")
		if r.URL.Query().Get("ra") != "" {
			w.Header().Set("Retry-After", r.URL.Query().Get("ra"))
		}
		status := http.StatusTooManyRequests
		if r.URL.Query().Get("s") == "503" {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
	}))
	defer ts.Close()
	hc := &headerCapture{base: http.DefaultTransport}
	get := func(q string) time.Duration {
		resp, err := (&http.Client{Transport: hc}).Get(ts.URL + q)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return hc.retryAfter()
	}
	require.Equal(t, 6*time.Minute, get(""), "the later reset")
	require.Equal(t, 2*time.Second, get("?ra=2"), "Retry-After first")
	require.Zero(t, get("?s=503"), "not a rate limit: the retry policy's backoff")
	require.Equal(t, MaxRetryAfter, rateLimitReset([2]string{"1h", ""}))
	require.Zero(t, rateLimitReset([2]string{"soon", ""}))
}

// Five unavailable attempts in a row open the worker's breaker of a model:
// the next request is refused without reaching it, not retried when the
// run has a fallback to turn to, retried after the cooldown when not.
func TestTheWorkersModelBreakerOpensOnAModelThatIsDown(t *testing.T) {
	down := func(openai.ChatCompletionRequest) scriptedmodel.Turn { return scriptedmodel.Turn{Status: 503} }
	f := newModelFixture(t, map[string]scriptedmodel.Script{"down": down})
	m := f.model("down")
	m.Fallbacks = []config.ModelFallback{{Name: "other"}}
	agent := f.agent(m)
	req := ModelRequest{Agent: agent, Delta: []Message{{Role: "user", Content: "hi"}}, Tools: oneTool}
	for range config.DefaultFailures {
		_, err := f.call(req)
		requireClass(t, err, ModelUnavailableError, true)
	}
	_, err := f.call(req)
	app := requireClass(t, err, ModelCircuitOpenError, false)
	require.Contains(t, app.Error(), `model "down" was unavailable 5 times in a row across runs`)
	require.Equal(t, config.DefaultFailures, f.srv.RequestCount(), "refused without reaching the model")

	// An agent of the same model with no fallback: retried after the
	// cooldown.
	lone := f.model("down")
	_, err = f.call(ModelRequest{Agent: f.agent(lone), Delta: req.Delta, Tools: oneTool})
	requireClass(t, err, ModelCircuitOpenError, true)
}

// A request whose conversation could not be read was never sent: it
// proves nothing of the model, so the half-open trial it held is given
// up (the next request is the trial), not taken as the model answering.
func TestAFailedReadOfTheConversationIsNotTheModelAnswering(t *testing.T) {
	down := func(openai.ChatCompletionRequest) scriptedmodel.Turn { return scriptedmodel.Turn{Status: 503} }
	f := newModelFixture(t, map[string]scriptedmodel.Script{"down": down})
	m := f.model("down")
	m.Breaker = &config.BreakerPolicy{Failures: 1, Cooldown: config.Duration(time.Millisecond)}
	agent := f.agent(m)
	_, err := f.call(ModelRequest{Agent: agent, Delta: []Message{{Role: "user", Content: "hi"}}, Tools: oneTool})
	requireClass(t, err, ModelUnavailableError, true)
	time.Sleep(5 * time.Millisecond) // the cooldown: the next request is the trial

	// The run answers its conversation query with a failure.
	f.querier.EXPECT().QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, gomock.Any()).
		Return(nil, serviceerror.NewQueryFailed("the handler broke"))
	_, err = f.call(ModelRequest{Agent: agent, Base: 3, AfterReply: "r1", Delta: []Message{{Role: "user", Content: "more"}}})
	requireClass(t, err, "ModelContextUnavailable", false)
	require.Equal(t, 1, f.srv.RequestCount(), "nothing was sent")
	require.Equal(t, policies.BreakerHalfOpen, f.acts.modelBreakers.breaker(m).State, "the trial was given up, not closed by the failed read")
}
