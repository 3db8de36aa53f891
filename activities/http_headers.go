package activities

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// setToolHeaders sets the tool's configured headers, their ${VAR}
// expanded from the worker's environment now, as the call is sent: the
// config (and the run's state) keeps only the variable's name, so a token
// never reaches workflow history. The engine's own headers are set after
// these, so a config can never replace them. An unset variable (the
// loader refuses one, so the worker's environment changed) fails the call
// for good, naming the variable, never a value.
func (a *Activities) setToolHeaders(h http.Header, tool config.Tool) error {
	for name, written := range tool.HTTP.Headers {
		v, unset := config.ExpandEnv(written, a.getenv)
		if len(unset) > 0 {
			return classed(policies.Fatal, fmt.Sprintf("tool %s: header %s: environment variable %s is not set in the worker",
				tool.Name, name, strings.Join(unset, ", ")), 0)
		}
		h.Set(name, v)
	}
	return nil
}
