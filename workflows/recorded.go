package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// A value the run recorded in a node (a model's reply, a person's reply,
// a handoff context, a summary, an escalation's note) is read back as what
// the run wrote. One that does not decode is a damaged record or a bug:
// read as empty, the run would go on from a reply it never had. It stops
// the run with a report naming the node (stopUndecodable); a run recorded
// before reads it as empty, as it did (versionDecodeStop, asked only when
// a value fails to decode).

// undecodable is a node's recorded value that does not decode.
type undecodable struct {
	node string
	kind signals.NodeKind
	what string
	err  error
}

func (u *undecodable) Error() string {
	return fmt.Sprintf("node %s (%s): %s does not decode: %v", u.node, u.kind, u.what, u.err)
}

// decodeRecorded decodes raw, the value what of node n, into v. A node
// that recorded nothing reads as empty.
func decodeRecorded(n *Node, what string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &undecodable{node: n.ID, kind: n.Kind, what: what, err: err}
	}
	return nil
}

// readRecorded is decodeRecorded for readers that cannot stop the run
// (the conversation, the handoff context and rules): v stays empty and
// the first failure is noted on the run. Each caller in the run clears
// the note, reads, then stops on it (askModel, handoffHost.Decoded),
// so a query's reading, which notes too, changes nothing.
func (run *Run) readRecorded(n *Node, what string, raw json.RawMessage, v any) {
	if err := decodeRecorded(n, what, raw, v); err != nil && run.undecoded == nil {
		run.undecoded = err
	}
}

// stopUndecodable stops the run for err, a recorded value that did not
// decode. nil when err is, and for a run recorded before the change: it
// goes on with the value empty.
func (r *runner) stopUndecodable(ctx workflow.Context, err error) error {
	if err == nil || versionOf(ctx, versionDecodeStop, 1) < 1 {
		return nil
	}
	workflow.GetLogger(ctx).Error("a recorded value does not decode: the run stops", "error", err.Error())
	return r.stop(ctx, "a recorded value of the run does not decode: "+err.Error())
}
