package activities

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/unstuck-dev/unstuck/policies"
)

// maxErrorText is how much of an error body reaches messages and traces.
const maxErrorText = 2048

// readReply reads the tool's reply: a 2xx body is the result. Anything
// else (a redirect included: the client never follows one) is an error of
// the class the tool's rules or the status give, with its message from
// the body and the retry delay from Retry-After.
func (c httpCall) readReply(resp *http.Response) (json.RawMessage, error) {
	// Read one byte past the limit to tell "exactly 1 MiB" from "more".
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResultBytes+1))
	if err != nil {
		return nil, classed(policies.Transient, c.red.apply(fmt.Sprintf("tool %s: reading the reply: %s", c.tool.Name, errText(err))), 0)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Redacted before it is shortened, so no part of a secret is left.
		msg := errorText([]byte(c.red.apply(string(data))))
		if where := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && where != "" {
			msg = fmt.Sprintf("redirect to %s refused (tools must answer directly)", safeURL(where))
		}
		class := policies.Classify(resp.StatusCode, msg, c.tool.Errors)
		return nil, classed(class, fmt.Sprintf("tool %s: HTTP %d: %s", c.tool.Name, resp.StatusCode, msg),
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
