package mcptools

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateAfter is how long closing a stdio session waits for the program to exit, after
// closing its stdin, before signalling it (the SDK's default is 5s).
const terminateAfter = 2 * time.Second

// stdioTransport starts cfg.Command with only PATH, HOME and the variables cfg.Env names, so
// a server program does not see the worker's secrets unless the config passes them on.
func stdioTransport(cfg ServerConfig, getenv func(string) (string, bool), stderr *stderrTail) *mcp.CommandTransport {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = []string{}
	for _, name := range append([]string{"PATH", "HOME"}, cfg.Env...) {
		if v, ok := getenv(name); ok {
			cmd.Env = append(cmd.Env, name+"="+v)
		}
	}
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}
}

// httpTransport connects to cfg.URL, sending cfg.Headers (with ${VAR} expanded) on every
// request. An unset variable is an error, not an empty value: an empty Authorization header
// would only turn into a confusing 401.
func httpTransport(cfg ServerConfig, getenv func(string) (string, bool)) (*mcp.StreamableClientTransport, error) {
	headers := make(http.Header, len(cfg.Headers))
	for name, value := range cfg.Headers {
		var missing []string
		expanded := os.Expand(value, func(v string) string {
			s, ok := getenv(v)
			if !ok {
				missing = append(missing, v)
			}
			return s
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("header %s uses ${%s}, which is not set", name, missing[0])
		}
		headers.Set(name, expanded)
	}
	return &mcp.StreamableClientTransport{
		Endpoint:   cfg.URL,
		HTTPClient: &http.Client{Transport: &headerTransport{headers: headers, base: http.DefaultTransport}},
		// The pool asks nothing of a server between calls (no list-changed notifications),
		// so the standing GET stream would only be one more connection to keep alive.
		DisableStandaloneSSE: true,
	}, nil
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	headers http.Header
	base    http.RoundTripper
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for name, values := range t.headers {
		req.Header[name] = values
	}
	return t.base.RoundTrip(req)
}
