package console

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// CookieName is the cookie that carries the token after a ?token= visit.
const CookieName = "unstuck_console"

// admit lets a request through, and answers it with the person it comes
// from when the console knows its people (identity.go). Without a token
// (or people's tokens) a request is let through as it comes, or, with
// Options.IdentityHeader, as the reverse proxy names its person. With
// tokens it must carry one: an Authorization: Bearer header, the cookie,
// or ?token=, which sets the cookie and, for a page, redirects to the
// same address without the token (so it does not linger in the address
// bar and the history). Anything else is answered 401 and not served.
func (c *Console) admit(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if c.opts.IdentityHeader != "" {
		return c.fromProxy(w, r)
	}
	if c.opts.Token == "" && len(c.opts.People) == 0 {
		return r, c.knownHost(w, r) && c.sameOrigin(w, r)
	}
	q := r.URL.Query()
	if q.Has("token") {
		token := q.Get("token")
		person, ok := c.tokenOf(token)
		if !ok {
			unauthorized(w, "the token in ?token= is wrong")
			return r, false
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			q.Del("token")
			to := url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: q.Encode()}
			http.Redirect(w, r, to.String(), http.StatusSeeOther)
			return r, false
		}
		return withWho(r, person), c.sameOrigin(w, r)
	}
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		if person, ok := c.tokenOf(strings.TrimSpace(bearer)); ok {
			return withWho(r, person), true // not a browser's ambient credential: no origin check needed
		}
		unauthorized(w, "the bearer token is wrong")
		return r, false
	}
	if ck, err := r.Cookie(CookieName); err == nil {
		if person, ok := c.tokenOf(ck.Value); ok {
			return withWho(r, person), c.sameOrigin(w, r)
		}
	}
	unauthorized(w, "this console needs its token")
	return r, false
}

// tokenOf says whether got is the console's token or a person's, and
// whose ("" for the console's own).
func (c *Console) tokenOf(got string) (person string, ok bool) {
	if len(c.opts.People) > 0 {
		person = c.personOf(got)
		return person, person != ""
	}
	return "", c.tokenIs(got)
}

func (c *Console) tokenIs(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.opts.Token)) == 1
}

func unauthorized(w http.ResponseWriter, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("WWW-Authenticate", `Bearer realm="unstuck console"`)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte("401 unauthorized: " + why + ".\n" +
		"Pass the token (--token or UNSTUCK_CONSOLE_TOKEN of `unstuck console`, or your own with --people) as the header\n" +
		"  Authorization: Bearer TOKEN\n" +
		"or open the console once as http://HOST:PORT/?token=TOKEN, which keeps it in the cookie " + CookieName + ".\n"))
}

// sameOrigin refuses an action posted from another site: a browser sends
// the cookie (and reaches loopback) whatever page posts the form, so a
// POST must come from the console's own pages. Browsers send Origin on
// every cross-site POST; a request without it is not a browser's form.
func (c *Console) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(origin); err == nil && u.Host == r.Host {
		return true
	}
	http.Error(w, "403 forbidden: an action must be posted from the console's own pages (Origin "+origin+" is not "+r.Host+")", http.StatusForbidden)
	return false
}
