package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
)

// The model the run asks (its fallbacks and their cooldown), a request's
// heartbeat, the prompt budget and its compactions, and asking again for
// a longer reply are package model's: it owns their state (the run's
// ModelChoice, and the generation's memory of its requests), and the
// rules are in policies/. This file wires it to the run (and
// context_summary.go gives it the oldest turns to summarize); step.go
// makes the request and asks it at each point.

// errFellBack: the request is asked again, of a fallback model.
var errFellBack = errors.New("asked again of a fallback model")

// model is the run's model call, over the run's state as it is now.
func (r *runner) model() *model.Call {
	return model.New(model.Parts{
		State:         &r.run.ModelChoice,
		Memory:        &r.asked,
		ClearedBefore: &r.run.ClearedBefore,
		Spec:          r.run.Spec,
		Step:          r.run.Step,
		Run:           modelRun{r},
		ErrorText:     errorText,
		Version:       versionOf,
		Gates:         modelGates,
		Metrics:       model.Metrics{Fallbacks: MetricModelFallbacks, Compactions: MetricCompactions},
	})
}

// modelGates are the gates the model call asks (versions.go).
var modelGates = model.Gates{
	ModelFallback:     versionModelFallback,
	FallbackCooldown:  versionFallbackCooldown,
	ModelHeartbeat:    versionModelHeartbeat,
	ContextClear:      versionContextClear,
	LongerReply:       versionLongerReply,
	CutOffRepair:      versionCutOffRepair,
	SummaryAfterRaise: versionSummaryAfterRaise,
	NoAnswerLoop:      versionNoAnswerLoop,
	GraphNoAnswer:     versionGraphNoAnswer,
	StreamCalls:       versionStreamCalls,
}

// modelRun is what the model call does to the run (model.Run).
type modelRun struct{ r *runner }

func (m modelRun) AddNode(ctx workflow.Context, n signals.Node) {
	m.r.addNode(ctx, Node{Node: n, Step: m.r.run.Step})
}

func (m modelRun) Count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	m.r.count(ctx, name, n, keyValues...)
}

func (m modelRun) SendWhole() { m.r.run.sendWhole() }

// RepairReads: the pipeline reads a call's arguments whole by rule
// (mend's Text) if the agent repairs and the tool is its own.
func (m modelRun) RepairReads(name, args string) bool { return m.r.mend().Reads(name, args) }
