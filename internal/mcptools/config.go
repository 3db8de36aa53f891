package mcptools

import "time"

// DefaultTimeout bounds a call, and connecting and listing, when ServerConfig.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// IdempotencyKeyMeta is the _meta key that carries a call's idempotency key.
const IdempotencyKeyMeta = "dev.unstuck/idempotency-key"

// ServerConfig is one MCP server as the worker's config names it.
type ServerConfig struct {
	Name string
	// Command is the program of a stdio server: started once per worker (on first use),
	// and started again when it exits.
	Command string
	Args    []string
	// Env names the environment variables passed to the program, besides PATH and HOME.
	// Their values are read (Getenv) each time the program starts; an unset one is left out.
	Env []string
	// URL is the endpoint of a streamable HTTP server. Exactly one of Command or URL is set.
	URL string
	// Headers are sent with every HTTP request. Values may contain ${VAR}, expanded (Getenv)
	// when connecting.
	Headers map[string]string
	// Timeout bounds each call, and connecting and listing; 0 means DefaultTimeout.
	Timeout time.Duration
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Tool is a tool as its server lists it.
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
	// ReadOnly and Idempotent are the tool's annotations (readOnlyHint,
	// idempotentHint): hints of its effect on the world.
	ReadOnly   bool
	Idempotent bool
}
