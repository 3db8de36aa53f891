package mcptools

import (
	"fmt"
	"net/http"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unstuck-dev/unstuck/config"
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

// httpTransport connects to cfg.URL, sending cfg.Headers on every request, expanded with the
// config's own rules (config.ExpandEnv: ${VAR}, ${VAR:-default}, $${ for a literal ${), as an
// HTTP tool's headers are; anything else, a lone $ included, is kept as written. An unset
// variable is an error, not an empty value: an empty Authorization header would only turn into a
// confusing 401. The error names the header and the variable, never a value or a piece of one:
// it reaches the activity failure, and so the run's history.
func httpTransport(cfg ServerConfig, getenv func(string) (string, bool)) (*mcp.StreamableClientTransport, error) {
	headers := make(http.Header, len(cfg.Headers))
	for name, value := range cfg.Headers {
		expanded, unset := config.ExpandEnv(value, getenv)
		if len(unset) > 0 {
			return nil, fmt.Errorf("header %s uses ${%s}, which is not set", name, unset[0])
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
