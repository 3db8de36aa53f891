package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/signals"
)

const (
	anaToken = "ana-0123456789abcdef"
	bobToken = "bob-0123456789abcdef"
)

func newPeopleConsole(t *testing.T, opts Options) (*mocks.Client, http.Handler) {
	t.Helper()
	m := mocks.NewClient(t)
	opts.Namespace, opts.Now = "default", func() time.Time { return testNow }
	h, err := New(m, opts)
	require.NoError(t, err)
	return m, h
}

// postAs serves an action's form with prep setting who sends it.
func postAs(h http.Handler, target string, form url.Values, prep func(*http.Request)) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8234"+target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	prep(r)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func proxied(name string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("X-Forwarded-User", name) }
}

func TestTheApproverIsWhoTheConsoleKnows(t *testing.T) {
	people := Options{People: map[string]string{anaToken: "ana", bobToken: "bob"}}
	proxy := Options{IdentityHeader: "X-Forwarded-User"}
	tests := []struct {
		name string
		opts Options
		as   func(*http.Request)
		by   string // the form's by
		want string // the by the run receives
	}{
		{"ana's token", people, bearer(anaToken), "", "ana"},
		{"bob's token, by naming himself", people, bearer(bobToken), "bob", "bob"},
		{"ana's token in the cookie", people, func(r *http.Request) { r.AddCookie(&http.Cookie{Name: CookieName, Value: anaToken}) }, "", "ana"},
		{"the proxy's header", proxy, proxied("carol@example.org"), "", "carol@example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, h := newPeopleConsole(t, tt.opts)
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, signals.ApproveResult{CallID: "n6", Decision: "approve"}, nil)
			form := url.Values{"call_id": {"n6"}, "decision": {"approve"}, "by": {tt.by}}
			class, text := answerOf(t, postAs(h, "/runs/r1/approve", form, tt.as))
			require.Equal(t, "ok", class, text)
			var got signals.ApproveRequest
			sent(t, opts, &got)
			require.Equal(t, tt.want, got.By)
		})
	}
}

func TestNoOneActsAsAnother(t *testing.T) {
	// No update is expected: the mock fails the test if one is sent.
	_, h := newPeopleConsole(t, Options{People: map[string]string{anaToken: "ana", bobToken: "bob"}})
	form := url.Values{"call_id": {"n6"}, "decision": {"approve"}, "by": {"bob"}}
	class, text := answerOf(t, postAs(h, "/runs/r1/approve", form, bearer(anaToken)))
	require.Equal(t, "rejected", class)
	require.Contains(t, text, `by is "bob", but you are signed in as ana`)

	w := postAs(h, "/runs/r1/approve", form, bearer("not-anyones-token-at-all"))
	require.Equal(t, http.StatusUnauthorized, w.Code)

	_, hp := newPeopleConsole(t, Options{IdentityHeader: "X-Forwarded-User"})
	for _, header := range []string{"", "two words", "tab\there"} {
		w := postAs(hp, "/runs/r1/approve", form, proxied(header))
		require.Equal(t, http.StatusUnauthorized, w.Code, "header %q", header)
		require.Contains(t, w.Body.String(), "X-Forwarded-User")
	}
}

func TestThePagesSayWhoIsSignedIn(t *testing.T) {
	_, h := newPeopleConsole(t, Options{IdentityHeader: "X-Forwarded-User"})
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8234/whoami", nil)
	proxied("<ana>")(r)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	require.Contains(t, w.Body.String(), "signed in as <strong>&lt;ana&gt;</strong>", "the name is escaped")

	_, anon := newTestConsole(t, "")
	require.Empty(t, get(anon, "/whoami").Body.String(), "a console that knows no one says nothing")
}

func TestWaysOfKnowingPeopleThatCannotWork(t *testing.T) {
	for name, tt := range map[string]struct {
		opts Options
		want string
	}{
		"header and token":  {Options{IdentityHeader: "X-Forwarded-User", Token: "s3cret"}, "comes with no token"},
		"people and token":  {Options{People: map[string]string{anaToken: "ana"}, Token: "s3cret"}, "drop the shared token"},
		"a short token":     {Options{People: map[string]string{"abc": "ana"}}, "ana's token is 3 characters"},
		"a name with space": {Options{People: map[string]string{anaToken: "ana b"}}, "holds a space"},
		"a key for no one":  {Options{SigningKey: make([]byte, 64)}, "a signing key signs for the person the console knows"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(mocks.NewClient(t), tt.opts)
			require.ErrorContains(t, err, tt.want)
		})
	}
	require.ErrorContains(t, CheckListen("0.0.0.0:8234", Options{IdentityHeader: "X-Forwarded-User"}), "Keep the console on loopback")
	require.NoError(t, CheckListen("127.0.0.1:8234", Options{IdentityHeader: "X-Forwarded-User"}))
	require.NoError(t, CheckListen("0.0.0.0:8234", Options{People: map[string]string{anaToken: "ana"}}))
}
