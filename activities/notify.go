package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
)

// NotifyRefusedError is the application error type of a notice that
// retrying cannot deliver: the webhook is not in the worker's config, a
// header's variable is not set, or the webhook answered a 4xx other than
// 408 and 429. Any other failure (no answer, a 5xx, 408, 429) is retried
// by the activity's retry policy.
const NotifyRefusedError = "NotifyRefused"

// NotifyTimeout bounds one POST of a notice.
const NotifyTimeout = 10 * time.Second

// NotifyRequest is a notice the run asks the worker to send to one of its
// webhooks, by name: where the webhook is and its headers are the
// worker's config's, so nothing a run carries can redirect the call.
type NotifyRequest struct {
	Webhook string `json:"webhook"`
	// Event is config.NotifyWaiting, NotifyHalfTimeout or NotifyTimedOut.
	Event string `json:"event"`
	// Run is the workflow id, RunID the generation's run id.
	Run   string `json:"run"`
	RunID string `json:"run_id"`
	Agent string `json:"agent"`
	// Node is the call waiting for approval, or the human node waiting
	// for a reply; Tool the call's tool ("" for a human node).
	Node string `json:"node"`
	Tool string `json:"tool,omitempty"`
	// Since is when the wait began, Deadline when it times out.
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// notice is the JSON body a webhook receives: the request's fields and
// the link to the node on the console's run page.
type notice struct {
	NotifyRequest
	Link string `json:"link"`
}

// Notify POSTs a notice to the webhook req names, with its configured
// headers (their ${VAR} expanded now) and Content-Type application/json.
// A 2xx answers it; the run never waits for the answer.
func (a *Activities) Notify(ctx context.Context, req NotifyRequest) error {
	hook, ok := a.config.Webhook(req.Webhook)
	if !ok {
		return refused(fmt.Sprintf("webhook %q is not in the worker's notify:", req.Webhook))
	}
	body, err := json.Marshal(notice{NotifyRequest: req, Link: signals.NodeLink(req.Run, req.Node)})
	if err != nil {
		return refused(fmt.Sprintf("webhook %s: %v", hook.Name, err))
	}
	ctx, cancel := context.WithTimeout(ctx, NotifyTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return refused(fmt.Sprintf("webhook %s: POST %s: bad request: %s", hook.Name, safeURL(hook.URL), errText(err)))
	}
	if err := a.setConfiguredHeaders(hreq.Header, hook.Headers); err != nil {
		return refused(fmt.Sprintf("webhook %s: %v", hook.Name, err))
	}
	hreq.Header.Set("Content-Type", "application/json")
	red := redactorFor(hook.URL)
	resp, err := a.http.Do(hreq)
	if err != nil {
		what := "connection failed"
		if errors.Is(err, context.DeadlineExceeded) {
			what = fmt.Sprintf("timed out after %s", NotifyTimeout)
		}
		return fmt.Errorf("webhook %s: POST %s: %s: %s", hook.Name, safeURL(hook.URL), what, red.apply(errText(err))) // retried
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	msg := fmt.Sprintf("webhook %s: POST %s: HTTP %d", hook.Name, safeURL(hook.URL), resp.StatusCode)
	if noticeRetried(resp.StatusCode) {
		return errors.New(msg)
	}
	return refused(msg)
}

// noticeRetried says whether a webhook's answer is worth asking again: a
// 5xx, 408 (timeout), 429 (too many requests). Any other 4xx is final,
// and so is a 3xx: the client follows no redirect, so a notice's headers
// never go anywhere but the configured URL.
func noticeRetried(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// refused is a notice failure that is final.
func refused(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, NotifyRefusedError, nil)
}
