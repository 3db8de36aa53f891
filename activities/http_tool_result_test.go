package activities

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A 2xx reply's body is the result: JSON as sent (trimmed), plain text as
// a JSON string, nothing as null.
func TestHTTPToolResultFromA2xxBody(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string
	}{
		{"JSON object", 200, "application/json", `{"flights":[{"id":"UA1"}]}`, `{"flights":[{"id":"UA1"}]}`},
		{"JSON with surrounding space", 200, "application/json", "\n  [1, 2]  \n", `[1,2]`}, // compacted by the data converter
		{"JSON scalar", 200, "application/json", `42`, `42`},
		{"201 created", 201, "application/json", `{"id":7}`, `{"id":7}`},
		{"JSON without a content type", 200, "text/plain", `{"ok":true}`, `{"ok":true}`},
		{"plain text wrapped as a string", 200, "text/plain", "booked: CONF-1 \"window\"\n", `"booked: CONF-1 \"window\""`},
		{"HTML wrapped as a string", 200, "text/html", `<p>ok</p>`, `"\u003cp\u003eok\u003c/p\u003e"`},
		{"empty body is null", 200, "", ``, `null`},
		{"blank body is null", 200, "", " \n\t", `null`},
		{"204 no content is null", 204, "", ``, `null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := newToolServer(t, answer(tc.status, tc.body, "Content-Type", tc.contentType))
			out, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
			require.NoError(t, err)
			require.Equal(t, tc.want, string(out))
		})
	}
}

func TestJSONResult(t *testing.T) {
	require.Equal(t, `null`, string(jsonResult(nil)))
	require.Equal(t, `{"a":1}`, string(jsonResult([]byte(" {\"a\":1}\r\n"))))
	require.Equal(t, `"not json {"`, string(jsonResult([]byte("not json {"))))
	var s string
	require.NoError(t, json.Unmarshal(jsonResult([]byte("line 1\nline 2")), &s))
	require.Equal(t, "line 1\nline 2", s)
}

// A result of exactly 1 MiB is accepted; one byte more is refused in the
// activity, not passed on to fail the workflow task.
func TestHTTPToolResultSizeLimit(t *testing.T) {
	exact := `"` + strings.Repeat("x", MaxResultBytes-2) + `"`
	require.Len(t, exact, 1<<20)

	t.Run("exactly 1 MiB", func(t *testing.T) {
		ts := newToolServer(t, answer(200, exact, "Content-Type", "application/json"))
		out, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("big", "GET", ts.URL)})
		require.NoError(t, err)
		require.Len(t, out, MaxResultBytes)
	})
	t.Run("1 MiB and a byte", func(t *testing.T) {
		ts := newToolServer(t, answer(200, exact+" ", "Content-Type", "application/json"))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("big", "GET", ts.URL)})
		ae := requireClass(t, err, ResultTooLargeError, false)
		require.Contains(t, ae.Error(), "tool big: result is over the 1048576-byte (1 MiB) limit")
	})
	t.Run("far over 1 MiB", func(t *testing.T) {
		ts := newToolServer(t, answer(200, `"`+strings.Repeat("x", 3<<20)+`"`, "Content-Type", "application/json"))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("big", "GET", ts.URL)})
		requireClass(t, err, ResultTooLargeError, false)
	})
	t.Run("plain text of 1 MiB is over once quoted", func(t *testing.T) {
		ts := newToolServer(t, answer(200, strings.Repeat("y", MaxResultBytes), "Content-Type", "text/plain"))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("big", "GET", ts.URL)})
		requireClass(t, err, ResultTooLargeError, false)
	})
}
