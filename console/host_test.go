package console

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
)

// Without a token the console answers only to loopback Host names and the
// ones it is told (a reverse proxy's), so a page an attacker's name
// rebinds to 127.0.0.1 cannot drive it; with a token any Host is served.
func TestHostsAConsoleWithoutATokenAnswers(t *testing.T) {
	m, open := newTestConsole(t, "")
	m.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{}, nil)
	proxied, err := New(m, Options{Namespace: "default", AllowedHosts: []string{"Console.Example.org"}})
	require.NoError(t, err)
	mt, withToken := newTestConsole(t, "s3cret")
	mt.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{}, nil)

	ask := func(h http.Handler, host string, prep func(*http.Request)) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		if prep != nil {
			prep(r)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, host := range []string{"127.0.0.1:8234", "localhost:8234", "[::1]:8234", "127.0.0.1"} {
		require.Equal(t, http.StatusOK, ask(open, host, nil).Code, host)
	}
	w := ask(open, "rebound.evil.example:8234", nil)
	require.Equal(t, http.StatusForbidden, w.Code)
	require.Contains(t, w.Body.String(), "--allow-host rebound.evil.example")

	require.Equal(t, http.StatusOK, ask(proxied, "console.example.org", nil).Code, "an allowed name, in any case")
	require.Equal(t, http.StatusForbidden, ask(proxied, "other.example.org", nil).Code)

	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }
	require.Equal(t, http.StatusOK, ask(withToken, "console.example.org", bearer).Code, "a token guards any Host")
}
