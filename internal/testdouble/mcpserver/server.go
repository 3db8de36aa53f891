package mcpserver

import (
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options selects what the double offers.
type Options struct {
	// Tools names the tools offered, in this order; empty means all of AllTools.
	Tools []string
	// Log, when set, gets one JSON line per tools/call.
	Log io.Writer
	// ExitOnCrash makes the crash tool exit the process (code 3) before answering. Only the
	// stdio/HTTP binary sets it: in-process, exiting would end the test binary.
	ExitOnCrash bool
}

// AllTools lists every tool the double knows, in the order it offers them by default.
var AllTools = []string{"echo", "add", "fail", "slow", "crash", "bad_schema", "text", "image"}

// New returns an MCP server offering opts.Tools. It panics on an unknown tool name, since
// that is a mistake in the test that asks for it.
func New(opts Options) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "unstuck-mcp-double", Version: "v1"}, nil)
	names := opts.Tools
	if len(names) == 0 {
		names = AllTools
	}
	for _, name := range names {
		if !slices.Contains(AllTools, name) {
			panic("mcpserver: unknown tool " + name)
		}
		addTool(server, name, opts)
	}
	server.AddReceivingMiddleware(logCalls(newCallLog(opts.Log)))
	return server
}

// Handler serves a server made with opts over streamable HTTP, for tests to wrap in
// httptest.NewServer. All HTTP sessions share one server, as one server process would.
func Handler(opts Options) http.Handler {
	server := New(opts)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}
