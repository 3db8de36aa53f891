package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// DefaultToolTimeout bounds an HTTP tool request when the config does not.
const DefaultToolTimeout = 30 * time.Second

// runHTTP sends a call to an HTTP tool per docs/contract.md: JSON body (GET:
// query string), Idempotency-Key and Unstuck-Workflow-Id headers; a 2xx
// JSON body is the result, anything else a classed error.
func (a *Activities) runHTTP(ctx context.Context, wfID, key string, req toolCall) (json.RawMessage, error) {
	c := newHTTPCall(req.Tool)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := a.buildRequest(ctx, c, wfID, key, req.Args)
	if err != nil {
		return nil, err
	}
	resp, err := a.send(c, hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return c.readReply(resp)
}

// httpCall is what the pieces of one HTTP tool call share: the tool, its
// method and timeout with their defaults, and what its messages must not
// show of its URL.
type httpCall struct {
	tool    config.Tool
	method  string
	timeout time.Duration
	red     redactor
}

func newHTTPCall(tool config.Tool) httpCall {
	c := httpCall{
		tool:    tool,
		method:  strings.ToUpper(tool.HTTP.Method),
		timeout: tool.HTTP.Timeout.D(),
		red:     redactorFor(tool.HTTP.URL),
	}
	if c.method == "" {
		c.method = http.MethodPost
	}
	if c.timeout <= 0 {
		c.timeout = DefaultToolTimeout
	}
	return c
}

// send sends the request. A failure to get any reply (refused, reset,
// timed out) is classed as status 0 by the tool's rules, transient by
// default; its message names the tool, method and URL without secrets.
func (a *Activities) send(c httpCall, hreq *http.Request) (*http.Response, error) {
	resp, err := a.http.Do(hreq)
	if err == nil {
		return resp, nil
	}
	what := "connection failed"
	if errors.Is(err, context.DeadlineExceeded) {
		what = fmt.Sprintf("timed out after %s", c.timeout)
	}
	text := c.red.apply(errText(err))
	return nil, classed(policies.Classify(policies.StatusTransport, text, c.tool.Errors),
		fmt.Sprintf("tool %s: %s %s: %s: %s", c.tool.Name, c.method, safeURL(c.tool.HTTP.URL), what, text), 0)
}

// classed builds the application error of a failure class: its type is
// the class, and only transient ones may be retried.
func classed(class policies.Class, msg string, retryAfter time.Duration) error {
	msg = strings.ToValidUTF8(msg, "\uFFFD") // a failure is a protobuf string: invalid UTF-8 (a binary body, a cut rune) fails to send
	return temporal.NewApplicationErrorWithOptions(msg, string(class), temporal.ApplicationErrorOptions{
		NonRetryable:   !class.Retryable(),
		NextRetryDelay: retryAfter,
	})
}
