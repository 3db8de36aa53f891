package activities

import (
	"context"
	"net/http"
	"os"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/mcptools"
)

// Querier is the part of the Temporal client the model activity uses to
// read the conversation of the run that called it.
type Querier interface {
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// Signaler is the part of the Temporal client the model activity uses to
// send a run the calls of a reply that is still streaming.
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Activities is the worker's activity set; register it with
// worker.RegisterActivity so its exported methods become activities.
type Activities struct {
	config  *config.File
	querier Querier
	history HistoryReader // nil when the client given to New cannot read histories
	// describer, when the client has it, reads a run's record cheaply.
	describer Describer
	// signaler, when the client has it, sends streamed calls (stream_calls).
	signaler Signaler
	// mcp is the worker's MCP connections, shared by its runs.
	mcp    MCPConnections
	http   *http.Client
	getenv func(string) (string, bool)
	convos *conversationCache
	// breakers are the tools' breakers of this worker, shared by its runs;
	// modelBreakers its model endpoints'.
	breakers      *workerBreakers
	modelBreakers *modelBreakers
	// tracer opens the model and tool spans (spans.go); nil: the global one.
	tracer trace.Tracer
	// emulator, when set, answers tool calls in place of the tools.
	emulator ToolEmulator
}

// New builds the activity set over a loaded config and a Temporal client
// (used only to query the calling run's conversation on a cache miss).
func New(cfg *config.File, querier Querier, opts ...Option) *Activities {
	a := &Activities{
		config:  cfg,
		querier: querier,
		// Each tool request carries its own timeout; this client only
		// pools connections. It never follows a redirect: that would
		// re-send the call's body and headers (a token among them) to
		// wherever the reply points, so a 3xx is the tool's answer.
		http: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		getenv:   os.LookupEnv,
		convos:   newConversationCache(1024),
		breakers: newWorkerBreakers(cfg), modelBreakers: &modelBreakers{},
	}
	a.mcp = mcptools.NewPool(mcpServers(cfg), func(k string) (string, bool) { return a.getenv(k) })
	a.history, _ = querier.(HistoryReader)
	a.describer, _ = querier.(Describer)
	a.signaler, _ = querier.(Signaler)
	for _, o := range opts {
		o(a)
	}
	return a
}
