package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
)

func TestTokenIsRequired(t *testing.T) {
	m, h := newTestConsole(t, "s3cret")
	m.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{}, nil)

	ask := func(target string, prep func(*http.Request)) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		if prep != nil {
			prep(r)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	for _, target := range []string{"/", "/runs-table", "/runs/x", "/inbox", "/static/htmx.min.js"} {
		w := ask(target, nil)
		require.Equal(t, http.StatusUnauthorized, w.Code, target)
		require.True(t, strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain"))
		require.Contains(t, w.Body.String(), "Authorization: Bearer TOKEN")
		require.Contains(t, w.Body.String(), "?token=TOKEN")
	}
	require.Equal(t, http.StatusUnauthorized, ask("/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") }).Code)
	require.Equal(t, http.StatusUnauthorized, ask("/", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: CookieName, Value: "wrong"}) }).Code)
	require.Equal(t, http.StatusUnauthorized, ask("/?token=wrong", nil).Code)
	w := post(h, "/runs/x/approve", nil)
	require.Equal(t, http.StatusUnauthorized, w.Code, "an action without the token is not sent")

	require.Equal(t, http.StatusOK, ask("/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }).Code)
	require.Equal(t, http.StatusOK, ask("/", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: CookieName, Value: "s3cret"}) }).Code)

	w = ask("/?agent=travel&token=s3cret", nil)
	require.Equal(t, http.StatusSeeOther, w.Code)
	require.Equal(t, "/?agent=travel", w.Header().Get("Location"), "the same address without the token")
	cookies := w.Result().Cookies()
	require.Len(t, cookies, 1)
	require.Equal(t, CookieName, cookies[0].Name)
	require.Equal(t, "s3cret", cookies[0].Value)
	require.True(t, cookies[0].HttpOnly)
}

func TestNoTokenServesEveryone(t *testing.T) {
	_, h := newTestConsole(t, "")
	w := get(h, "/static/htmx.min.js")
	require.Equal(t, http.StatusOK, w.Code)
	require.Contains(t, w.Body.String(), "htmx")
}

func TestAnActionFromAnotherSiteIsRefused(t *testing.T) {
	_, h := newTestConsole(t, "") // no update expected
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8234/runs/x/approve", strings.NewReader("call_id=n1&decision=approve"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "https://evil.example")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusForbidden, w.Code)
}

func TestCheckListen(t *testing.T) {
	for _, ok := range []struct{ addr, token string }{
		{"127.0.0.1:8234", ""}, {"[::1]:8234", ""}, {"localhost:0", ""}, {"0.0.0.0:8234", "t"}, {":8234", "t"},
	} {
		require.NoError(t, CheckListen(ok.addr, Options{Token: ok.token}), ok.addr)
	}
	err := CheckListen("0.0.0.0:8234", Options{})
	require.ErrorContains(t, err, "refusing to serve 0.0.0.0 without a token")
	require.ErrorContains(t, err, "UNSTUCK_CONSOLE_TOKEN")
	require.ErrorContains(t, CheckListen(":8234", Options{}), "refusing to serve every interface without a token")
	require.ErrorContains(t, CheckListen("192.168.1.5:80", Options{}), "reverse proxy")
	require.ErrorContains(t, CheckListen("8234", Options{}), "want host:port")
}

func TestServeRefusesANonLoopbackAddressWithoutAToken(t *testing.T) {
	_, h := newTestConsole(t, "")
	err := Serve(t.Context(), "0.0.0.0:0", h)
	require.ErrorContains(t, err, "refusing to serve 0.0.0.0 without a token")
}
