package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// MaxResultBytes is the largest tool result a run accepts. A larger one is
// refused here, in the activity, with a clear error: passed on, it would
// fail the workflow task that records it instead.
const MaxResultBytes = config.MaxToolResultBytes

// ResultTooLargeError is the application error type of a refused result.
const ResultTooLargeError = "ResultTooLarge"

// ToolRequest is one tool call to execute. It names the tool; where the
// tool lives (URL, built-in) is looked up in the worker's own config here,
// so the workflow's history never holds an address and nothing a starter
// sends can point a call elsewhere.
type ToolRequest struct {
	// CallID is the call's trace node id: with the workflow id it makes
	// the idempotency key stable across retries of this call.
	CallID string          `json:"call_id"`
	Tool   ToolRef         `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// Chain is the first run id of the run's continue-as-new chain: in the
	// key, it tells apart two runs that reuse one workflow id. Requests
	// scheduled by earlier versions have none and keep their old key.
	Chain string `json:"chain,omitempty"`
	// Agent is the agent whose call this is: a tool outside its tools and
	// their fallbacks is refused. Requests of earlier versions have none.
	Agent string `json:"agent,omitempty"`
}

// ToolRef names a tool of the worker's config. It is an object, not a
// bare string, so requests scheduled by earlier versions (which carried
// the whole tool) still decode: only the name is read.
type ToolRef struct {
	Name string `json:"name"`
	// MCP, for a tool of an MCP server, names the server and the tool
	// there (never where the server is), and Effect is the tool's effect
	// (which its idempotency key depends on): the worker's config has no
	// entry for a tool an agent reaches by server/* or server/tool.
	MCP    *config.MCPTool `json:"mcp,omitempty"`
	Effect string          `json:"effect,omitempty"`
}

// toolCall is a request with its tool looked up in the worker's config.
type toolCall struct {
	CallID string
	Tool   config.Tool
	Args   json.RawMessage
}

// RunTool executes a call of an HTTP or built-in tool and answers its JSON
// result. Failures are application errors whose type is the error class
// (transient, invalid_args, persistent, fatal); only transient ones are
// retryable.
func (a *Activities) RunTool(ctx context.Context, r ToolRequest) (json.RawMessage, error) {
	ctx, span := a.startToolSpan(ctx, r)
	result, err := a.runTool(ctx, r)
	endSpan(span, err)
	return result, err
}

// runTool looks the tool up, checks the agent may call it and its
// breaker, and calls it.
func (a *Activities) runTool(ctx context.Context, r ToolRequest) (json.RawMessage, error) {
	wfID := activity.GetInfo(ctx).WorkflowExecution.ID
	tool, ok := a.config.Tool(r.Tool.Name)
	switch {
	case r.Tool.MCP != nil:
		var err error
		if tool, err = a.mcpTool(r); err != nil {
			return nil, err
		}
	case !ok:
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s is not in this worker's config (removed or renamed since the run started)", r.Tool.Name), 0)
	case tool.MCP != nil:
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s is a tool of MCP server %s, but the request does not say so", r.Tool.Name, tool.MCP.Server), 0)
	case r.Agent != "" && !a.agentMayCall(r.Agent, r.Tool.Name):
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s is not one of agent %s's tools (or their fallbacks) in this worker's config", r.Tool.Name, r.Agent), 0)
	}
	req := toolCall{CallID: r.CallID, Tool: tool, Args: r.Args}
	key, err := ChainIdempotencyKey(wfID, r.Chain, req.CallID, req.Tool, req.Args)
	if err != nil {
		return nil, classed(policies.InvalidArgs, fmt.Sprintf("tool %s: arguments are not JSON: %v", req.Tool.Name, err), 0)
	}
	if result, done, err := a.emulate(wfID, req); done {
		return result, err
	}
	if err := a.breakers.allow(ctx, tool.Name, time.Now()); err != nil {
		return nil, err
	}
	result, err := a.callTool(ctx, wfID, key, req)
	a.breakers.record(tool.Name, time.Now(), outcomeClass(ctx, err), err == nil)
	return result, err
}

// callTool sends a call to its HTTP tool or built-in and checks the size
// of the result.
func (a *Activities) callTool(ctx context.Context, wfID, key string, req toolCall) (json.RawMessage, error) {
	var result json.RawMessage
	var err error
	switch {
	case req.Tool.HTTP != nil:
		result, err = a.runHTTP(ctx, wfID, key, req)
	case req.Tool.Builtin != "":
		result, err = runBuiltin(ctx, wfID, key, req)
	case req.Tool.MCP != nil:
		result, err = a.runMCP(ctx, key, req)
	default:
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s has neither http, builtin nor mcp", req.Tool.Name), 0)
	}
	if err != nil {
		return nil, err
	}
	if len(result) > MaxResultBytes {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("tool %s: result is over the %d-byte (1 MiB) limit", req.Tool.Name, MaxResultBytes),
			ResultTooLargeError, nil)
	}
	return result, nil
}

func runBuiltin(ctx context.Context, wfID, key string, req toolCall) (json.RawMessage, error) {
	fn, ok := builtin.Lookup(req.Tool.Builtin)
	if !ok {
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s: built-in %q is not in this worker (known: %v)", req.Tool.Name, req.Tool.Builtin, builtin.Names()), 0)
	}
	out, err := fn(ctx, builtin.Call{WorkflowID: wfID, IdempotencyKey: key, Args: req.Args})
	if err != nil {
		// A tool's errors: rules win over the class the built-in gave.
		class, msg := policies.Transient, err.Error()
		var be *builtin.Error
		if errors.As(err, &be) && be.Class != "" {
			class = policies.Class(be.Class)
		}
		if c, ok := policies.MatchRule(0, msg, req.Tool.Errors); ok {
			class = c
		}
		return nil, classed(class, fmt.Sprintf("tool %s: %s", req.Tool.Name, msg), 0)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, classed(policies.Persistent, fmt.Sprintf("tool %s: result is not JSON: %v", req.Tool.Name, err), 0)
	}
	return b, nil
}

// agentMayCall says whether the worker's config gives an agent a tool: one
// of its tools or, transitively, their fallbacks.
func (a *Activities) agentMayCall(agent, tool string) bool {
	resolved, err := a.config.Resolve(agent, a.getenv)
	if err != nil {
		return false
	}
	_, ok := resolved.Tool(tool)
	return ok
}
