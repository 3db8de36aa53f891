package mend

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/policies/repair"
)

// Before answers arguments that failed the tool's schema before the call
// ran: rules first (no model), then, for what needs judgement, one focused
// model request. It answers the repaired arguments, or why the call
// fails ("" when it does not).
func (m *Mender) Before(ctx workflow.Context, node string, tool config.Tool, args json.RawMessage, why string) (json.RawMessage, string) {
	argsMap, opts, ok := m.ruleInput(ctx, node, tool, args)
	if !ok {
		return nil, why
	}
	res := m.byRules(ctx, func(rules repair.RuleSet) repair.Result {
		return m.gateRules(ctx, func(disabled []string) repair.Result {
			o := opts
			o.Rules, o.Disabled = rules, disabled
			return repair.Repair(tool.Parameters, argsMap, o)
		})
	})
	if len(res.Repairs) > 0 {
		fixed := m.ruleRepaired(ctx, node, tool, args, res)
		if res.Valid {
			return fixed, ""
		}
		args = fixed
		why = "arguments do not match the tool's parameters schema: " + describe(res.Unrepaired)
	}
	return m.withModel(ctx, node, tool, args, why)
}

// After answers arguments a tool refused as invalid_args: the refusal's
// message is parsed into the same rules, then the model is asked. It
// answers false when nothing better was found.
func (m *Mender) After(ctx workflow.Context, node string, tool config.Tool, args json.RawMessage, message string) (json.RawMessage, bool) {
	argsMap, opts, ok := m.ruleInput(ctx, node, tool, args)
	if !ok {
		return nil, false
	}
	res := m.byRules(ctx, func(rules repair.RuleSet) repair.Result {
		o := opts
		o.Rules = rules
		return repair.RepairRejection(tool.Parameters, argsMap, message, o)
	})
	if len(res.Repairs) > 0 && res.Valid {
		return m.ruleRepaired(ctx, node, tool, args, res), true
	}
	fixed, problem := m.withModel(ctx, node, tool, args, message)
	return fixed, problem == "" && fixed != nil
}

// ruleInput is what a rule repair of a call starts from: its arguments as
// an object and the rules' options now. ok is false when the call has no
// attempt left or its arguments are not an object.
func (m *Mender) ruleInput(ctx workflow.Context, node string, tool config.Tool, args json.RawMessage) (map[string]any, repair.Options, bool) {
	if m.Left(node) <= 0 {
		return nil, repair.Options{}, false
	}
	argsMap, ok := objectOf(args)
	if !ok {
		return nil, repair.Options{}, false
	}
	schema, _ := m.host.ToolSchema(tool)
	return argsMap, repair.Options{Today: workflow.Now(ctx), Compiled: schema}, true
}

// ruleRepaired counts a repair the rules made as an attempt of the call
// and records it, and answers the repaired arguments.
func (m *Mender) ruleRepaired(ctx workflow.Context, node string, tool config.Tool, args json.RawMessage, res repair.Result) json.RawMessage {
	m.at.add(node)
	fixed := m.host.JSON(res.Args)
	m.record(ctx, node, tool.Name, args, fixed, res, "")
	return fixed
}

func objectOf(args json.RawMessage) (map[string]any, bool) {
	v, err := policies.DecodeJSON(args)
	if err != nil {
		return nil, false
	}
	obj, ok := v.(map[string]any)
	return obj, ok
}

func describe(vs []config.Violation) string {
	text := ""
	for i, v := range vs {
		if i > 0 {
			text += "; "
		}
		text += v.String()
	}
	return text
}
