package edit

import (
	"encoding/json"
	"sort"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// RebuiltState is State as the calls that stay wrote it: each completed
// call's result at its _outputPath, in the order the calls completed,
// over the State the trace's archived part left.
func (e *Edits) RebuiltState() refs.State {
	var base refs.State
	if a := e.tr.Archived; a != nil {
		base = a.StateBase
	}
	return e.StateWritten(base, e.tr.Nodes)
}

// StateWritten is base (not changed) with the writes of the completed
// calls among nodes applied, in the order the calls completed.
func (e *Edits) StateWritten(base refs.State, nodes []trace.Node) refs.State {
	type write struct {
		order int
		path  refs.Path
		value json.RawMessage
	}
	var writes []write
	for i := range nodes {
		n := &nodes[i]
		if n.Status != signals.StatusCompleted {
			continue
		}
		if n.Kind == signals.KindHuman && n.GraphNode != "" {
			// A graph's human node puts the reply's output in State.human.
			var reply signals.ReplyRequest
			if json.Unmarshal(n.Output, &reply) == nil && len(reply.Output) > 0 {
				writes = append(writes, write{order: n.Settled, path: refs.Path{Root: "state", Steps: []string{"human"}}, value: reply.Output})
			}
			continue
		}
		if n.Kind != signals.KindCall || n.Tool == signals.FinalOutputTool {
			continue
		}
		if p := e.callWrite(n); p != nil {
			writes = append(writes, write{order: n.Settled, path: *p, value: n.Output})
		}
	}
	// Calls completed before the order was kept (Settled 0) came first.
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].order < writes[j].order })
	state := cloneState(base)
	for _, w := range writes {
		if v, err := policies.DecodeJSON(w.value); err == nil {
			// Numbers as State holds them (refs.Exact).
			refs.Write(state, w.path, refs.Exact(v))
		}
	}
	return state
}

// callWrite is the State path a call writes: a model's call its
// _outputPath, as its request's reply gives it; a graph's tool node's
// call the node's output_path.
func (e *Edits) callWrite(n *trace.Node) *refs.Path {
	if n.ModelCallID == "" && n.GraphNode != "" && e.host.Graph() {
		return e.host.NodeWrite(n.GraphNode)
	}
	if n.ModelCallID == "" || len(n.Parents) != 1 {
		return nil
	}
	req := e.tr.Node(n.Parents[0])
	if req == nil {
		return nil
	}
	var rec model.Record
	if json.Unmarshal(req.Output, &rec) != nil {
		return nil
	}
	for _, tc := range rec.ToolCalls {
		if tc.ID == n.ModelCallID {
			return e.callIO(tc).Write
		}
	}
	return nil
}

// cloneState copies a State deeply: refs.Write changes the maps it
// writes through, and an archive's base must not change.
func cloneState(s refs.State) refs.State {
	out := make(refs.State, len(s))
	// Copying: the order does not matter.
	//workflowcheck:ignore
	for k, v := range s {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return map[string]any(cloneState(v))
	case refs.State:
		return cloneState(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
