package activities

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// setToolHeaders sets the tool's configured headers (setConfiguredHeaders).
// An unset variable (the loader refuses one, so the worker's environment
// changed) fails the call for good.
func (a *Activities) setToolHeaders(h http.Header, tool config.Tool) error {
	if err := a.setConfiguredHeaders(h, tool.HTTP.Headers); err != nil {
		return classed(policies.Fatal, fmt.Sprintf("tool %s: %v", tool.Name, err), 0)
	}
	return nil
}

// setConfiguredHeaders sets headers as the worker's config writes them
// (a tool's, a webhook's), their ${VAR} expanded from the worker's
// environment now, as the request is sent: the config (and the run's
// state) keeps only the variable's name, so a token never reaches
// workflow history. The engine's own headers are set after these, so a
// config can never replace them. An unset variable is an error naming
// the header and the variable, never a value.
func (a *Activities) setConfiguredHeaders(h http.Header, headers map[string]string) error {
	for name, written := range headers {
		v, unset := config.ExpandEnv(written, a.getenv)
		if len(unset) > 0 {
			return fmt.Errorf("header %s: environment variable %s is not set in the worker", name, strings.Join(unset, ", "))
		}
		h.Set(name, v)
	}
	return nil
}
