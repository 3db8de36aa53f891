package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/unstuck-dev/unstuck/policies"
)

// buildRequest is the call's request: its arguments as the JSON body, or
// for GET in the query string; the tool's configured headers; then the
// engine's, which a config cannot replace.
func (a *Activities) buildRequest(ctx context.Context, c httpCall, wfID, key string, args json.RawMessage) (*http.Request, error) {
	target := c.tool.HTTP.URL
	var body io.Reader
	if c.method == http.MethodGet {
		q, err := queryString(args)
		if err != nil {
			return nil, classed(policies.InvalidArgs, fmt.Sprintf("tool %s: %v", c.tool.Name, err), 0)
		}
		target = withQuery(target, q)
	} else {
		body = bytes.NewReader(argsOrEmpty(args))
	}
	hreq, err := http.NewRequestWithContext(ctx, c.method, target, body)
	if err != nil {
		return nil, classed(policies.Fatal, c.red.apply(fmt.Sprintf("tool %s: %s %s: bad request: %s",
			c.tool.Name, c.method, safeURL(c.tool.HTTP.URL), errText(err))), 0)
	}
	hreq.Header.Set("Accept", "application/json")
	if err := a.setToolHeaders(hreq.Header, c.tool); err != nil {
		return nil, err
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	} else {
		hreq.Header.Del("Content-Type")
	}
	hreq.Header.Set("Idempotency-Key", key)
	hreq.Header.Set("Unstuck-Workflow-Id", wfID)
	return hreq, nil
}

// withQuery adds an encoded query to a URL that may have one already.
func withQuery(target, q string) string {
	if q == "" {
		return target
	}
	if strings.Contains(target, "?") {
		return target + "&" + q
	}
	return target + "?" + q
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
