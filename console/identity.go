package console

import (
	"context"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"

	"crypto/subtle"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"unicode"
)

// Who uses the console. With Options.People each person has a token of
// their own, and the token a request carries names them; with
// Options.IdentityHeader a reverse proxy that authenticates (oauth2-proxy
// with --pass-user-headers sets X-Forwarded-User) names them in a header.
// Either way an action's `by` is that person, never what a form says.
// Without either, the console knows no one, and `by` is what was typed.

// whoKey holds, in a request's context, the person it comes from.
type whoKey struct{}

// who is the person request r comes from ("": the console knows no one).
func who(r *http.Request) string {
	name, _ := r.Context().Value(whoKey{}).(string)
	return name
}

func withWho(r *http.Request, name string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), whoKey{}, name))
}

// knowsPeople: a console of opts knows who uses it.
func knowsPeople(opts Options) bool {
	return len(opts.People) > 0 || opts.IdentityHeader != ""
}

// personOf is the person whose token got is, "" for none. Every token is
// compared, each in constant time, so the time taken says nothing of
// which one came close.
func (c *Console) personOf(got string) string {
	found := ""
	for token, name := range c.opts.People {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			found = name
		}
	}
	return found
}

// fromProxy admits a request the reverse proxy names a person in, with
// that person; one without the header was not through the proxy.
func (c *Console) fromProxy(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if !c.knownHost(w, r) || !c.sameOrigin(w, r) {
		return r, false
	}
	name := strings.TrimSpace(r.Header.Get(c.opts.IdentityHeader))
	if problem := checkPersonName(name); problem != "" {
		unauthorized(w, fmt.Sprintf("the reverse proxy did not say who you are: header %s %s", c.opts.IdentityHeader, problem))
		return r, false
	}
	return withWho(r, name), true
}

// maxPersonName bounds a person's name as a header or a file gives it.
const maxPersonName = 128

// checkPersonName says what is wrong with a person's name ("" nothing).
func checkPersonName(name string) string {
	switch {
	case name == "":
		return "is missing or empty"
	case len(name) > maxPersonName:
		return fmt.Sprintf("is over %d bytes", maxPersonName)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return fmt.Sprintf("%q holds a space or a control character", name)
	}
	return ""
}

// asWho answers an action's form with the person it comes from as its
// "by": a form that names someone else is refused, so no one signs for
// another.
func asWho(r *http.Request, get func(string) string) (func(string) string, error) {
	me := who(r)
	if me == "" {
		return get, nil
	}
	if by := strings.TrimSpace(get("by")); by != "" && by != me {
		return nil, fmt.Errorf("by is %q, but you are signed in as %s: the console records who you are", by, me)
	}
	return func(k string) string {
		if k == "by" {
			return me
		}
		return get(k)
	}, nil
}

// whoami is GET /whoami: who the console takes you for, for the pages'
// header.
func (c *Console) whoami(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if me := who(r); me != "" {
		fmt.Fprintf(w, `<span class="who">signed in as <strong>%s</strong></span>`, template.HTMLEscapeString(me))
	}
}

// minPersonToken is the shortest token a person may have: a guessable
// one would let anyone act as them.
const minPersonToken = 16

// checkIdentity refuses ways of knowing people that cannot work together
// or are unsafe: a shared token beside people's own, a proxy's header
// beside tokens, a short or shared token, a bad name.
func checkIdentity(opts Options) error {
	if opts.IdentityHeader != "" && (opts.Token != "" || len(opts.People) > 0) {
		return fmt.Errorf("console: an identity header (%s) comes with no token: the reverse proxy in front authenticates", opts.IdentityHeader)
	}
	if opts.SigningKey != nil && !knowsPeople(opts) {
		return fmt.Errorf("console: a signing key signs for the person the console knows: give it people's tokens or a reverse proxy's identity header")
	}
	if len(opts.People) > 0 && opts.Token != "" {
		return fmt.Errorf("console: people have tokens of their own: drop the shared token")
	}
	for token, name := range opts.People {
		if problem := checkPersonName(name); problem != "" {
			return fmt.Errorf("console: a person's name %s", problem)
		}
		if len(token) < minPersonToken {
			return fmt.Errorf("console: %s's token is %d characters: give each person at least %d (openssl rand -hex 16)", name, len(token), minPersonToken)
		}
	}
	return nil
}

// signApproval signs req for the person the console knows (its by), with
// the console's key, when it has one: tools whose approval names by:
// groups take only signed approvals. Every approval the console sends,
// one call's or a group's, is signed here.
func (c *Console) signApproval(ctx context.Context, workflowID string, known runmsg.Known, req *signals.ApproveRequest) error {
	if c.opts.SigningKey == nil {
		return nil
	}
	return runmsg.Sign(ctx, c.tc, workflowID, "", known, c.opts.SigningKey, config.ConsoleSigner, req)
}

// signReply signs reply req to the run of workflowID as the console
// (config.ConsoleSigner), for the person req's by names, when the console
// holds a signing key (runmsg.SignReply); without one it sends req as it
// is.
func (c *Console) signReply(ctx context.Context, workflowID string, req *signals.ReplyRequest) error {
	if c.opts.SigningKey == nil {
		return nil
	}
	return runmsg.SignReply(ctx, c.tc, workflowID, "", c.opts.SigningKey, config.ConsoleSigner, req)
}
