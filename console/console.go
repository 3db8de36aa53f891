package console

import (
	"crypto/ed25519"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Options configure a console.
type Options struct {
	// Namespace is the Temporal namespace the client is bound to, shown on
	// the pages.
	Namespace string
	// Token, when set, is required by every request (see auth.go).
	Token string
	// People, when set, gives each person a token of their own (token to
	// name) instead of Token: the token a request carries says who it is,
	// and an action's by is that person (identity.go).
	People map[string]string
	// IdentityHeader, when set, is the header a reverse proxy that
	// authenticates names the person in (X-Forwarded-User): the console
	// then listens on loopback only and an action's by is that person.
	IdentityHeader string
	// SigningKey, when set, is the console's key (config.ConsoleSigner in
	// the worker's people.keys): the console signs each approval for the
	// person it knows, so tools whose approval names by: groups take it.
	SigningKey ed25519.PrivateKey
	// AllowedHosts are the Host names (without port) a console without a
	// token answers besides loopback ones: the names a reverse proxy in
	// front of it passes on. See host.go.
	AllowedHosts []string
	// Now tells the time, for "started 5m ago"; nil is time.Now.
	Now func() time.Time
	// MaxStreams bounds the event streams (GET /runs/{id}/events) the
	// console serves at once, MaxStreamsPerRun those of one run; 0 is
	// DefaultMaxStreams, DefaultMaxStreamsPerRun. A stream over a bound
	// is refused (503, 429) with a Retry-After.
	MaxStreams, MaxStreamsPerRun int
}

// Console serves the console's pages and actions over one Temporal
// client.
type Console struct {
	tc    client.Client
	opts  Options
	pages *template.Template
	mux   *http.ServeMux
	// streams are the event streams open, ended when the console stops.
	streams *streams
}

// New builds the console's handler over tc. The caller keeps tc and
// closes it.
func New(tc client.Client, opts Options) (http.Handler, error) {
	if tc == nil {
		return nil, fmt.Errorf("console: no Temporal client")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := checkIdentity(opts); err != nil {
		return nil, err
	}
	for i, h := range opts.AllowedHosts {
		opts.AllowedHosts[i] = strings.ToLower(strings.TrimSpace(h))
	}
	knows := knowsPeople(opts)
	pages, err := template.New("console").Funcs(templateFuncs).
		Funcs(template.FuncMap{"knowsPeople": func() bool { return knows }}).
		ParseFS(templateFiles, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("console: parse templates: %w", err)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("console: static files: %w", err)
	}
	c := &Console{tc: tc, opts: opts, pages: pages, mux: http.NewServeMux(), streams: newStreams(opts.MaxStreams, opts.MaxStreamsPerRun)}
	c.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	c.mux.HandleFunc("GET /{$}", c.runsPage)
	c.mux.HandleFunc("GET /runs-table", c.runsTable)
	c.mux.HandleFunc("GET /runs/{id}", c.runPage)
	c.mux.HandleFunc("GET /runs/{id}/live", c.runLive)
	c.mux.HandleFunc("GET /runs/{id}/events", c.runEvents)
	c.mux.HandleFunc("GET /runs/{id}/approvals", c.runApprovals)
	c.mux.HandleFunc("GET /runs/{id}/nodes/{node}", c.nodePanel)
	c.mux.HandleFunc("GET /whoami", c.whoami)
	c.mux.HandleFunc("GET /inbox", c.inbox)
	c.mux.HandleFunc("GET /inbox/items", c.inboxItems)
	c.mux.HandleFunc("GET /approvals", c.approvals)
	c.mux.HandleFunc("POST /approvals/answer", c.answerGroup)
	c.mux.HandleFunc("POST /runs/{id}/approve", c.approve)
	c.mux.HandleFunc("POST /runs/{id}/edit", c.edit)
	c.mux.HandleFunc("POST /runs/{id}/handoff", c.handoff)
	c.mux.HandleFunc("POST /runs/{id}/reply", c.reply)
	c.mux.HandleFunc("POST /runs/{id}/message", c.message)
	c.mux.HandleFunc("POST /runs/{id}/budget", c.budget)
	return c, nil
}

// stopStreams ends every event stream open and refuses new ones: a
// stream lasts as long as its run, so a server shutting down would wait
// for it to the end of its grace period.
func (c *Console) stopStreams() { c.streams.stop() }

// ServeHTTP checks the token, then serves the request.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := c.admit(w, r)
	if !ok {
		return
	}
	c.mux.ServeHTTP(w, r)
}

// render writes the template name with data; a template error after the
// header went out can only be logged into the page's end.
func (c *Console) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := c.pages.ExecuteTemplate(w, name, data); err != nil {
		fmt.Fprintf(w, "\n<!-- console: template %s: %s -->\n", name, template.HTMLEscapeString(err.Error()))
	}
}
