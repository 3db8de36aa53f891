package workflows

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// visitResult is what a graph node visit did: ok and error feed the edge
// conditions; signature feeds the loop detector.
type visitResult struct {
	ok        bool
	errText   string
	class     string
	signature string
	key       string
	done      bool // an end node: the run is complete
	output    json.RawMessage
	stopErr   error
}

// walkGraph runs an agent with an explicit graph: visit the current node,
// feed the loop detector, then take the first edge whose condition holds.
// Model requests and node visits both count against max_steps.
func (r *runner) walkGraph(ctx workflow.Context) (*AgentResult, error) {
	g := r.run.Spec.Agent.Graph
	if r.run.GraphAt == "" {
		r.run.GraphAt = g.Start
	}
	if rp := r.run.ResumeFrom; rp != nil {
		r.run.ResumeFrom = nil
		next, err := r.nextNode(rp.Node, visitResult{ok: rp.OK, errText: rp.Error})
		if err != nil {
			return nil, r.stop(ctx, "after the rollback: "+err.Error())
		}
		r.run.GraphAt = next
	}
	for {
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			return nil, r.continueAsNew(ctx)
		}
		if max := r.run.Spec.Agent.Policies.MaxSteps; r.run.Step >= max {
			return nil, r.stop(ctx, fmt.Sprintf("max_steps (%d) reached without reaching an end node", max))
		}
		at := r.run.GraphAt
		res := r.visit(ctx, at, g.Nodes[at])
		if res.stopErr != nil {
			return nil, res.stopErr
		}
		if ctx.Err() != nil {
			return nil, r.cancelled(ctx, "")
		}
		if res.done {
			result, err := r.complete(ctx, r.run.Frontier[0], res.output)
			r.tagGraphNode(r.run.Nodes[len(r.run.Nodes)-1].ID, at) // the output node
			return result, err
		}
		if esc := r.observe(ctx, at, r.run.Frontier[len(r.run.Frontier)-1], res.signature, res.key, !res.ok, res.class); esc != nil {
			if esc.stopErr != nil {
				return nil, esc.stopErr
			}
			if esc.continueAsNew {
				return nil, r.continueAsNew(ctx)
			}
			if esc.goTo != "" {
				r.run.GraphAt = esc.goTo
				continue
			}
		}
		next, err := r.nextNode(at, res)
		if err != nil {
			return nil, r.stop(ctx, err.Error())
		}
		r.run.GraphAt = next
	}
}

// visit executes one graph node.
func (r *runner) visit(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	if !n.LLM { // an llm node's step is its model request
		r.run.Step++
	}
	r.run.Visits[at]++
	switch {
	case n.End:
		return r.visitEnd(ctx, at, n)
	case n.Tool != "":
		return r.visitTool(ctx, at, n)
	case n.LLM:
		return r.visitLLM(ctx, at)
	case n.Human:
		reply, id, timedOut, err := r.awaitHuman(ctx, "graph node "+at)
		r.tagGraphNode(id, at)
		if err != nil {
			return visitResult{stopErr: err}
		}
		if timedOut {
			return visitResult{ok: false, errText: "no reply", signature: "human:" + at + ":timeout", key: "human:" + at}
		}
		if len(reply.Output) > 0 {
			r.run.State["human"] = stateValue(decodeOrString(reply.Output))
		}
		return visitResult{ok: true, signature: "human:" + at + ":ok", key: "human:" + at}
	}
	return visitResult{stopErr: r.stop(ctx, fmt.Sprintf("graph node %q has no kind", at))}
}

// visitTool runs a tool node: its arguments (references resolved), the
// tool's schema, breaker and retry policy, and its output_path.
func (r *runner) visitTool(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	tool, ok := r.run.Spec.Tool(n.Tool)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusRunning, Parents: r.run.Frontier, Tool: n.Tool, GraphNode: at,
	}, Step: r.run.Step})
	id := node.ID
	r.run.Frontier = []string{id}
	if !ok {
		r.finishNode(ctx, id, nil, unknownTool(n.Tool, r.toolNames()))
		return visitResult{errText: "unknown tool", signature: at + ":unknown", key: at}
	}
	var write *refs.Path
	if n.OutputPath != "" {
		if p, err := refs.ParseOutputPath(n.OutputPath); err == nil {
			write = &p
		}
	}
	var args any = map[string]any{}
	if n.Args != nil {
		args = n.Args
	}
	errText, class, resolved := r.callTool(ctx, id, tool, args, write)
	key := callKey(at, tool.Name, resolved)
	if errText != "" {
		return visitResult{errText: errText, class: class, signature: key + ":" + class, key: key}
	}
	return visitResult{ok: true, signature: key + ":ok", key: key}
}

// visitLLM is one model request and its calls, inside a graph.
func (r *runner) visitLLM(ctx workflow.Context, at string) visitResult {
	reply, reqID, err := r.request(ctx)
	r.tagGraphNode(reqID, at)
	if err != nil {
		return visitResult{stopErr: err}
	}
	// The node's identity in loops is what the model asked for, so an llm
	// node visited again with new calls is progress, not a cycle.
	key := policies.Signature(at, "llm", string(mustJSON(reply.ToolCalls)), reply.Content)
	if len(reply.ToolCalls) == 0 {
		return visitResult{ok: true, signature: key + ":content", key: key}
	}
	final, _, err := r.runCalls(ctx, reqID, reply.ToolCalls)
	if err != nil {
		return visitResult{stopErr: err}
	}
	if final != nil {
		return visitResult{done: true, output: final.output}
	}
	failed := ""
	for _, id := range r.run.Frontier {
		if n := r.run.node(id); n != nil && n.Status == signals.StatusFailed {
			failed = n.Error
		}
	}
	return visitResult{ok: failed == "", errText: failed, signature: key + ":" + boolText(failed == ""), key: key}
}

// visitEnd completes the run with the end node's output: a reference, or
// the whole State.
func (r *runner) visitEnd(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	var out any = r.run.State
	if n.Output != "" {
		resolved, problem := r.resolveArgs(map[string]any{"output": n.Output})
		if problem != "" {
			return visitResult{stopErr: r.stop(ctx, fmt.Sprintf("end node %s: %s", at, problem))}
		}
		var m map[string]any
		_ = json.Unmarshal(resolved, &m)
		out = m["output"]
	}
	return visitResult{done: true, output: mustJSON(out)}
}

// nextNode takes the first outgoing edge whose condition holds (an edge
// without one always holds), skipping edges a rollback excluded.
func (r *runner) nextNode(at string, res visitResult) (string, error) {
	env := config.WhenEnv{OK: res.ok, Error: res.errText, State: r.run.State, Input: r.inputMap(), Visits: r.run.Visits}
	for i, e := range r.run.Spec.Agent.Graph.Edges {
		if e.From != at || r.excluded(e) {
			continue
		}
		if e.When == "" {
			return e.To, nil
		}
		prog, err := r.whenProgram(i, e.When)
		if err != nil {
			return "", fmt.Errorf("edge %s -> %s: %v", e.From, e.To, err)
		}
		v, err := expr.Run(prog, env)
		if err != nil {
			return "", fmt.Errorf("edge %s -> %s: condition %q: %v", e.From, e.To, e.When, err)
		}
		if b, _ := v.(bool); b {
			return e.To, nil
		}
	}
	return "", fmt.Errorf("no edge from graph node %s applies (ok=%v, error=%q)", at, res.ok, res.errText)
}

func (r *runner) whenProgram(i int, when string) (*vm.Program, error) {
	if p, ok := r.whens[i]; ok {
		return p, nil
	}
	p, err := config.CompileWhen(when)
	if err != nil {
		return nil, err
	}
	r.whens[i] = p
	return p, nil
}

// offCycleEdge picks, for path exploration, an outgoing edge of at whose
// target is not in the cycle, the least visited first (ties: edge order).
func (r *runner) offCycleEdge(at string, cycle map[string]bool) (string, bool) {
	type cand struct {
		to     string
		visits int
		order  int
	}
	var cands []cand
	for i, e := range r.run.Spec.Agent.Graph.Edges {
		if e.From == at && !cycle[e.To] && !r.excluded(e) {
			cands = append(cands, cand{e.To, r.run.Visits[e.To], i})
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].visits != cands[j].visits {
			return cands[i].visits < cands[j].visits
		}
		return cands[i].order < cands[j].order
	})
	return cands[0].to, true
}

func (r *runner) excluded(e config.GraphEdge) bool {
	for _, x := range r.run.ExcludedEdges {
		if x == e.From+"->"+e.To {
			return true
		}
	}
	return false
}

func (r *runner) tagGraphNode(id, at string) {
	if n := r.run.node(id); n != nil {
		n.GraphNode = at
	}
}

func (r *runner) inputMap() map[string]any {
	m := map[string]any{}
	if len(r.run.Input.Input) > 0 {
		_ = json.Unmarshal(r.run.Input.Input, &m)
	}
	return m
}

func decodeOrString(raw json.RawMessage) any {
	v, err := decodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	return v
}

func boolText(b bool) string {
	if b {
		return "ok"
	}
	return "failed"
}

// stateValue turns JSON numbers into int64 (when whole and in range) or
// float64, so edge conditions compare them as numbers ("state.n == 2")
// and whole numbers stay exact.
func stateValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x { // each entry is rewritten in place: order does not matter
			x[k] = stateValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = stateValue(e)
		}
		return x
	default:
		return v
	}
}
