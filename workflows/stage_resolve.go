package workflows

import (
	"encoding/json"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
)

// resolve is the first stage: the call's references are replaced by their
// values in State or the run's input; a reference that names nothing fails
// the call before it runs.
func (p *pipeline) resolve(ctx workflow.Context, c *stepCall) {
	args, problem := p.r.run.resolveArgs(c.args)
	if problem != "" {
		p.fail(ctx, c, problem, policies.Structural)
		return
	}
	if len(args) > config.MaxPayloadBytes {
		// References copy whole values; two large ones make an activity
		// input Temporal refuses.
		p.fail(ctx, c, config.OverPayload("the resolved arguments are", len(args))+
			": references copy whole values, so pass a part ("+refs.Prefix+"state.x.id) instead", policies.Structural)
		return
	}
	p.validate(ctx, c, args)
}

// resolveArgs replaces references by their values in the run's State or
// input.
func (run *Run) resolveArgs(args any) (json.RawMessage, string) {
	var input any = map[string]any{}
	if len(run.Input.Input) > 0 {
		if v, err := decodeJSON(run.Input.Input); err == nil {
			input = v
		}
	}
	resolved, errs := refs.Resolve(args, run.State, input)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, strings.Join(msgs, "; ")
	}
	return mustJSON(resolved), ""
}
