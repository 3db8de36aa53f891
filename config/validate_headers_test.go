package config

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Header values are kept as written, ${VAR} included, so the secret a
// variable holds is never in the loaded config nor in what a run keeps;
// the tool activity expands them when it sends a call.
func TestHTTPToolHeadersKeepTheirVariables(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("BOOKING_TOKEN", "s3cret", "HOST", "t")
	f, err := Parse("agents.yaml", []byte(withTool(
		"  - name: book",
		"    http:",
		"      url: http://${HOST}/book",
		"      headers: {Authorization: \"Bearer ${BOOKING_TOKEN}\", X-Tenant: \"${TENANT:-acme}\", X-Lit: \"$${NOT_A_VAR}\"}")), opts)
	require.NoError(t, err)
	h := f.Tools[0].HTTP
	require.Equal(t, "http://t/book", h.URL, "the URL is expanded at load")
	require.Equal(t, map[string]string{
		"Authorization": "Bearer ${BOOKING_TOKEN}",
		"X-Tenant":      "${TENANT:-acme}",
		"X-Lit":         "$${NOT_A_VAR}",
	}, h.Headers)

	f.Agents[0].Tools = append(f.Agents[0].Tools, "book")
	r, err := f.Resolve("x", opts.Getenv)
	require.NoError(t, err)
	for what, v := range map[string]any{"file": f, "resolved": r, "run's copy": r.WithoutEndpoints()} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		require.NotContains(t, string(b), "s3cret", what)
	}
}

func TestHTTPToolHeadersValidation(t *testing.T) {
	cases := []struct {
		name, headers string
		path, reason  string
	}{
		{"space in name", `{"Bad Name": x}`, `tools[0].http.headers["Bad Name"]`, `invalid header name "Bad Name"`},
		{"colon in name", `{"X:Y": x}`, `tools[0].http.headers["X:Y"]`, `invalid header name "X:Y"`},
		{"empty name", `{"": x}`, `tools[0].http.headers[""]`, `invalid header name ""`},
		{"idempotency key", `{idempotency-key: x}`, "tools[0].http.headers.idempotency-key", "header Idempotency-Key is set by unstuck"},
		{"workflow id", `{Unstuck-Workflow-Id: x}`, "tools[0].http.headers.Unstuck-Workflow-Id", "header Unstuck-Workflow-Id is set by unstuck"},
		{"content type", `{CONTENT-TYPE: text/plain}`, "tools[0].http.headers.CONTENT-TYPE", "header Content-Type is set by unstuck"},
		{"host", `{host: evil}`, "tools[0].http.headers.host", "header Host is set by unstuck"},
		{"line break", `{X-A: "a\r\nX-B: b"}`, "tools[0].http.headers.X-A", "cannot hold a line break"},
		{"unset variable", `{Authorization: "Bearer ${BOOKING_TOKEN}"}`, "tools[0].http.headers.Authorization", "environment variable BOOKING_TOKEN is not set"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(withTool(
				"  - name: t",
				"    http: {url: http://t/t,",
				"      headers: "+tc.headers+"}"))
			requireProblem(t, err, 5, tc.path, tc.reason)
		})
	}
}

func TestHTTPToolHeadersValid(t *testing.T) {
	f, err := parse(withTool(
		"  - name: t",
		"    http:",
		"      url: http://t/t",
		"      headers: {Accept: text/csv, X-Api-Version: 2, \"x_odd!#$%&'*+.^`|~\": ok}"))
	require.NoError(t, err)
	require.Equal(t, "2", f.Tools[0].HTTP.Headers["X-Api-Version"])
}
