package activities

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
)

// Application error types of the model activity.
const (
	// ModelUnavailableError is retried: timeouts, connection errors, 408,
	// 409, 429 and 5xx.
	ModelUnavailableError = "ModelUnavailable"
	// ModelRejectedError is not retried: the request itself is wrong
	// (bad key, unknown model, bad request).
	ModelRejectedError = "ModelRejected"
	// ModelContextExceededError is not retried as it is: the prompt is
	// over the model's window. A run that compacts (policies.context) is
	// answered instead (ModelReply.OverBudget, Refused) and compacts.
	ModelContextExceededError = "ModelContextExceeded"
)

// ModelDidNotAnswer says whether a model request failed with an error of
// type errType because the model did not answer: unavailable on every
// attempt, stalled (model_stall.go), or refused by the worker's breaker
// of it. The worker's breaker counts such a failure against the model
// (its own refusals never reach it); a run whose models all failed so
// waits the outage out (workflows/model_outage.go).
func ModelDidNotAnswer(errType string) bool {
	switch errType {
	case ModelUnavailableError, ModelStalledError, ModelCircuitOpenError:
		return true
	}
	return false
}

// contextExceededSigns are how providers say a prompt is over the
// model's window: OpenAI's and Azure's code, and the messages of OpenAI,
// vLLM, Anthropic, Gemini and llama.cpp-style servers.
var contextExceededSigns = []string{
	"context_length_exceeded", "maximum context length", "prompt is too long", "exceeds the context window",
	"input token count", "context window", "too many tokens", "reduce the length of the messages",
}

// contextExceeded says whether a provider refused the request because
// its prompt is over the model's window.
func contextExceeded(err error) bool {
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusBadRequest && apiErr.HTTPStatusCode != http.StatusRequestEntityTooLarge {
		return false
	}
	if code, ok := apiErr.Code.(string); ok && code == "context_length_exceeded" {
		return true
	}
	text := strings.ToLower(apiErr.Message)
	for _, sign := range contextExceededSigns {
		if strings.Contains(text, sign) {
			return true
		}
	}
	return false
}

// modelError classes a go-openai error for Temporal. Retry-After, when the
// server sent one, becomes the delay before the next attempt.
func modelError(m config.Model, err error, retryAfter time.Duration) error {
	status := 0
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	// The endpoint's host only: its path, query or userinfo may hold a
	// secret, and this message goes into the run's history.
	where := fmt.Sprintf("model %q at %s", m.Name, safeURL(m.BaseURL))
	// A proxy's error page can be large or not UTF-8; failures travel as
	// protobuf strings, so keep the text short and valid.
	text := strings.ToValidUTF8(shorten(redactorFor(m.BaseURL).apply(errText(err))), "\uFFFD")
	msg := fmt.Sprintf("%s: %s", where, text)
	if status != 0 {
		msg = fmt.Sprintf("%s: HTTP %d: %s", where, status, text)
	}
	if contextExceeded(err) {
		return temporal.NewNonRetryableApplicationError(msg+": the conversation is over the model's context window; "+
			"give the agent policies.context (and the model its context_window) so the run compacts it", ModelContextExceededError, nil)
	}
	if modelStatusRetryable(status) {
		return temporal.NewApplicationErrorWithOptions(msg, ModelUnavailableError, temporal.ApplicationErrorOptions{
			NextRetryDelay: retryAfter,
		})
	}
	return temporal.NewNonRetryableApplicationError(msg, ModelRejectedError, nil)
}

// modelStatusRetryable: 0 means no HTTP answer at all (a transport error).
func modelStatusRetryable(status int) bool {
	return status == 0 || status == 408 || status == 409 || status == 429 || status >= 500
}

// headerCapture remembers the Retry-After header of the last response, which
// go-openai's errors do not expose.
type headerCapture struct {
	base http.RoundTripper
	mu   sync.Mutex
	last string
	// resets are OpenAI's x-ratelimit-reset-requests and -tokens
	// ("1s", "6m0s", "20ms"): when the limits fill up again.
	resets [2]string
	status int
}

func (h *headerCapture) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(r)
	if resp != nil {
		h.mu.Lock()
		h.last = resp.Header.Get("Retry-After")
		h.resets = [2]string{resp.Header.Get("X-Ratelimit-Reset-Requests"), resp.Header.Get("X-Ratelimit-Reset-Tokens")}
		h.status = resp.StatusCode
		h.mu.Unlock()
	}
	return resp, err
}

func (h *headerCapture) retryAfter() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := parseRetryAfter(h.last, time.Now()); d > 0 || h.last != "" || h.status != http.StatusTooManyRequests {
		return d
	}
	return rateLimitReset(h.resets)
}

// rateLimitReset is the later of OpenAI's x-ratelimit-reset-* durations,
// for a 429 without Retry-After (0 when neither parses), capped as
// Retry-After is.
func rateLimitReset(resets [2]string) time.Duration {
	var d time.Duration
	for _, v := range resets {
		if r, err := time.ParseDuration(v); err == nil && r > d {
			d = r
		}
	}
	return min(d, MaxRetryAfter)
}

// parseRetryAfter reads seconds or an HTTP date; anything else is 0 (use
// the retry policy's own backoff).
func parseRetryAfter(v string, now time.Time) time.Duration {
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		d = time.Duration(min(secs, int(MaxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil && t.After(now) {
		d = t.Sub(now)
	}
	return min(d, MaxRetryAfter)
}

// MaxRetryAfter caps a server's Retry-After: a day-long (or overflowing)
// value would park a run; past this, the retry policy's own backoff and
// attempts decide.
const MaxRetryAfter = 10 * time.Minute
