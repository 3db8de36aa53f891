package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/policies"
)

// DefaultToolTimeout bounds an HTTP tool request when the config does not.
const DefaultToolTimeout = 30 * time.Second

// maxErrorText is how much of an error body reaches messages and traces.
const maxErrorText = 2048

// runHTTP sends a call to an HTTP tool per CONTRACT.md: JSON body (GET:
// query string), Idempotency-Key and Unstuck-Workflow-Id headers; a 2xx
// JSON body is the result, anything else a classed error.
func (a *Activities) runHTTP(ctx context.Context, wfID, key string, req toolCall) (json.RawMessage, error) {
	spec := req.Tool.HTTP
	red := redactorFor(spec.URL)
	timeout := spec.Timeout.D()
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	method := strings.ToUpper(spec.Method)
	if method == "" {
		method = http.MethodPost
	}
	target := spec.URL
	var body io.Reader
	if method == http.MethodGet {
		q, err := queryString(req.Args)
		if err != nil {
			return nil, classed(policies.InvalidArgs, fmt.Sprintf("tool %s: %v", req.Tool.Name, err), 0)
		}
		if q != "" {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			target += sep + q
		}
	} else {
		body = bytes.NewReader(argsOrEmpty(req.Args))
	}
	hreq, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, classed(policies.Fatal, red.apply(fmt.Sprintf("tool %s: %s %s: bad request: %s", req.Tool.Name, method, safeURL(spec.URL), errText(err))), 0)
	}
	hreq.Header.Set("Accept", "application/json")
	if err := a.setToolHeaders(hreq.Header, req.Tool); err != nil {
		return nil, err
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	} else {
		hreq.Header.Del("Content-Type")
	}
	hreq.Header.Set("Idempotency-Key", key)
	hreq.Header.Set("Unstuck-Workflow-Id", wfID)

	resp, err := a.http.Do(hreq)
	if err != nil {
		what := "connection failed"
		if errors.Is(err, context.DeadlineExceeded) {
			what = fmt.Sprintf("timed out after %s", timeout)
		}
		text := red.apply(errText(err))
		return nil, classed(policies.Classify(policies.StatusTransport, text, req.Tool.Errors),
			fmt.Sprintf("tool %s: %s %s: %s: %s", req.Tool.Name, method, safeURL(spec.URL), what, text), 0)
	}
	defer resp.Body.Close()
	// Read one byte past the limit to tell "exactly 1 MiB" from "more".
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResultBytes+1))
	if err != nil {
		return nil, classed(policies.Transient, red.apply(fmt.Sprintf("tool %s: reading the reply: %s", req.Tool.Name, errText(err))), 0)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := red.apply(errorText(data))
		if where := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && where != "" {
			msg = fmt.Sprintf("redirect to %s refused (tools must answer directly)", safeURL(where))
		}
		class := policies.Classify(resp.StatusCode, msg, req.Tool.Errors)
		return nil, classed(class, fmt.Sprintf("tool %s: HTTP %d: %s", req.Tool.Name, resp.StatusCode, msg),
			parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
	}
	if len(data) > MaxResultBytes {
		return data, nil // RunTool refuses it with the size in the message
	}
	return jsonResult(data), nil
}

// jsonResult is the body when it is JSON; a 2xx reply in plain text is kept
// as a JSON string rather than lost, and an empty one is null.
func jsonResult(data []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	b, _ := json.Marshal(string(trimmed))
	return b
}

// errorText is the message of an error body: its "error" field (a string,
// or an object's "message") when it is JSON, else the text, shortened.
func errorText(data []byte) string {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &env) == nil && len(env.Error) > 0 && string(env.Error) != "null" {
		var s string
		if json.Unmarshal(env.Error, &s) == nil {
			return shorten(s)
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(env.Error, &obj) == nil && obj.Message != "" {
			return shorten(obj.Message)
		}
		return shorten(string(env.Error))
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "(empty body)"
	}
	return shorten(text)
}

func shorten(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	return s[:maxErrorText] + "…"
}

// queryString encodes top-level arguments for a GET tool: scalars as
// text, anything else as JSON, keys in sorted order.
func queryString(args json.RawMessage) (string, error) {
	// UseNumber keeps numbers as the model wrote them (no float64 rounding).
	dec := json.NewDecoder(bytes.NewReader(argsOrEmpty(args)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", fmt.Errorf("GET arguments must be a JSON object: %v", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v := url.Values{}
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			v.Add(k, x)
		case nil:
			v.Add(k, "")
		case json.Number:
			v.Add(k, x.String())
		default:
			b, _ := json.Marshal(x)
			v.Add(k, string(b))
		}
	}
	return v.Encode(), nil
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
