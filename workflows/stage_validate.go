package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
)

// validate checks the resolved arguments against the tool's parameters
// schema: valid ones go on to the block stage, the others to repair.
func (p *pipeline) validate(ctx workflow.Context, c *stepCall, args json.RawMessage) {
	why := p.r.checkArgs(c.tool, args)
	if why == "" {
		p.block(ctx, c, args)
		return
	}
	p.repair(ctx, c, args, why)
}

// checkArgs validates arguments against the tool's parameters schema; ""
// means valid.
func (r *runner) checkArgs(tool config.Tool, args json.RawMessage) string {
	if tool.Parameters == nil {
		return ""
	}
	schema, err := r.toolSchema(tool)
	if err != nil {
		return err.Error()
	}
	doc, err := decodeJSON(args)
	if err != nil {
		return "arguments are not valid JSON: " + err.Error()
	}
	if err := schema.Validate(doc); err != nil {
		return "arguments do not match the tool's parameters schema: " + config.DescribeViolations(err)
	}
	return ""
}
