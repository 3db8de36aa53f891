package edit

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// lineage is the trace as policies.PlanEdit reads it: for each call of a
// model's reply, the calls of its step whose State writes it references
// (final_output reads them all).
func (e *Edits) lineage() []policies.LineageNode {
	deps := e.stepDependencies()
	nodes := e.tr.Nodes
	out := make([]policies.LineageNode, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		ln := policies.LineageNode{
			ID: n.ID, Kind: string(n.Kind),
			Settled: n.Status == signals.StatusCompleted || (n.Status == signals.StatusFailed && !n.StoppedBeforeRun()),
			Invalid: n.Status == signals.StatusInvalidated,
			Audit:   n.Kind == signals.KindEdit || (n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped),
		}
		switch n.Kind {
		case signals.KindCall:
			if n.ModelCallID != "" && len(n.Parents) == 1 {
				ln.Request = n.Parents[0]
			}
			ln.DependsOn = deps[n.ID]
		case signals.KindRepair, signals.KindApproval:
			if len(n.Parents) == 1 {
				ln.Of = n.Parents[0]
			}
		}
		out[i] = ln
	}
	return out
}

// stepDependencies maps each valid call of a model's reply to the valid
// calls of the same reply it read from, as refs.Plan orders them.
func (e *Edits) stepDependencies() map[string][]string {
	deps := map[string][]string{}
	for i := range e.tr.Nodes {
		req := &e.tr.Nodes[i]
		if req.Kind != signals.KindRequest || req.Status != signals.StatusCompleted {
			continue
		}
		var rec model.Record
		if json.Unmarshal(req.Output, &rec) != nil || len(rec.ToolCalls) == 0 {
			continue
		}
		ids := make([]string, len(rec.ToolCalls))
		io := make([]refs.CallIO, len(rec.ToolCalls))
		for j, tc := range rec.ToolCalls {
			if n := ValidCall(e.tr, req.ID, tc.ID); n != nil {
				ids[j] = n.ID
			}
			io[j] = e.callIO(tc)
		}
		plan, _ := refs.Plan(io)
		for j, tc := range rec.ToolCalls {
			if ids[j] == "" {
				continue
			}
			for k := range rec.ToolCalls {
				reads := tc.Name == signals.FinalOutputTool && k != j
				if !reads {
					for _, d := range plan[j] {
						reads = reads || d == k
					}
				}
				if reads && ids[k] != "" {
					deps[ids[j]] = append(deps[ids[j]], ids[k])
				}
			}
		}
	}
	return deps
}

// ValidCall is the call node, not invalidated, that answers model call id
// callID of request reqID (nil: none).
func ValidCall(t *trace.Trace, reqID, callID string) *trace.Node {
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		n := &t.Nodes[i]
		if n.Kind == signals.KindCall && n.ModelCallID == callID && n.Status != signals.StatusInvalidated && !n.Superseded &&
			len(n.Parents) == 1 && n.Parents[0] == reqID {
			return n
		}
	}
	return nil
}

// callIO is what a model's call reads and writes in State, from its
// arguments as the model wrote them.
func (e *Edits) callIO(tc activities.ToolCall) refs.CallIO {
	args, problem := e.host.ParseArgs(tc.Args)
	if problem != "" {
		return refs.CallIO{}
	}
	doc, err := policies.DecodeJSON(args)
	if err != nil {
		return refs.CallIO{}
	}
	obj := doc.(map[string]any)
	var io refs.CallIO
	if s, ok := obj[refs.OutputPathArg].(string); ok {
		if p, err := refs.ParseOutputPath(s); err == nil {
			io.Write = &p
		}
		delete(obj, refs.OutputPathArg)
	}
	io.Reads = refs.Reads(refs.Find(obj))
	return io
}
