package activities

import (
	"errors"
	"net/url"
	"strings"
)

// An HTTP tool's error messages become activity failures, which Temporal
// keeps in the run's history and unstuck shows in the trace. A tool's URL
// may carry a token (${VAR} in its query string, user:password@), so no
// message shows more of it than scheme://host/path.

// safeURL is raw as an error may show it: scheme, host and path, without
// userinfo, query or fragment.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.Opaque != "" {
		return u.Scheme + ":…"
	}
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return shown.String()
}

// errText is err's text without the URL: a *url.Error (what the HTTP
// client answers) prints the whole URL, query string included, so only
// the error inside it is shown.
func errText(err error) string {
	for range 8 { // url.Errors do not nest deeper; bound it anyway
		var ue *url.Error
		if !errors.As(err, &ue) || ue.Err == nil {
			break
		}
		err = ue.Err
	}
	return err.Error()
}

// redactor removes a URL's secrets from a message, should an error (or a
// reply quoting the request) hold them anyway.
type redactor []string

// redactorFor is the redactor of the secrets raw may hold: its query
// string, fragment and userinfo.
func redactorFor(raw string) redactor {
	u, err := url.Parse(raw)
	if err != nil {
		return redactor{raw}
	}
	var r redactor
	for _, s := range []string{u.RawQuery, u.Fragment, u.User.String()} {
		if s != "" {
			r = append(r, s)
		}
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		r = append(r, pw)
	}
	return r
}

// apply replaces every secret in msg with "…".
func (r redactor) apply(msg string) string {
	for _, s := range r {
		msg = strings.ReplaceAll(msg, s, "…")
	}
	return msg
}
