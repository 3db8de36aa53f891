package activities

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// No error of an HTTP tool shows its URL's query string or userinfo,
// where a token may be: the tool and method are named, the URL only as
// scheme://host/path.
func TestHTTPToolErrorsHoldNoURLSecret(t *testing.T) {
	echo := newToolServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("no route for " + r.URL.String()))
	})
	redirect := newToolServer(t, answer(http.StatusFound, "", "Location", "http://u:pw-s3cret@127.0.0.1:1/next?token=s3cret#s3cret"))
	refused := refusedAddr(t)
	cases := []struct {
		name, method, url string
		class, want       string
	}{
		{"query, refused", "POST", "http://" + refused + "/x?token=s3cret", "transient",
			"tool t: POST http://" + refused + "/x: connection failed: "},
		{"userinfo, refused", "POST", "http://user:pw-s3cret@" + refused + "/x", "transient",
			"tool t: POST http://" + refused + "/x: connection failed: "},
		{"GET with arguments, refused", "GET", "http://" + refused + "/x?token=s3cret", "transient",
			"tool t: GET http://" + refused + "/x: connection failed: "},
		{"unparsable", "POST", "http://127.0.0.1:port/x?token=s3cret", "fatal",
			"tool t: POST (unparsable URL): bad request: "},
		{"reply quoting the URL", "POST", echo.URL + "/x?token=s3cret", "persistent",
			"tool t: HTTP 404: no route for /x?…"},
		{"redirect to a URL with secrets", "POST", redirect.URL, "persistent",
			"tool t: HTTP 302: redirect to http://127.0.0.1:1/next refused (tools must answer directly)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", tc.method, tc.url), Args: json.RawMessage(`{"q":"x"}`)})
			ae := appError(t, err)
			require.Equal(t, tc.class, ae.Type(), "%v", err)
			require.Contains(t, ae.Message(), tc.want)
			require.NotContains(t, ae.Error(), "s3cret")
			require.NotContains(t, ae.Error(), "token=")
		})
	}
}

func TestSafeURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://h:8080/a/b?token=x#f", "http://h:8080/a/b"},
		{"https://user:pw@h/a", "https://h/a"},
		{"http://h", "http://h"},
		{"/relative?x=1", "/relative"},
		{"mailto:someone@example.com", "mailto:…"},
		{"http://h:port/x", "(unparsable URL)"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, safeURL(tc.in), tc.in)
	}
}
