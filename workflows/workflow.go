package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/edit"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/mend"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/outage"
	"github.com/unstuck-dev/unstuck/workflows/person"
	"github.com/unstuck-dev/unstuck/workflows/waiting"
)

// BadInputError is the application error type of a run refused at start.
const BadInputError = "BadInput"

// runner is one generation of a run: the serialisable Run plus what is
// rebuilt on every start and replay (compiled schemas).
type runner struct {
	run          *Run
	outputSchema *jsonschema.Schema
	toolSchemas  map[string]*jsonschema.Schema
	// personState is what waits for a person (workflows/person, through
	// person()).
	personState person.State
	// seenAt is the workflow time of the run's latest change shown
	// (showDetails): status.spend's wall time is as of then.
	seenAt time.Time
	// budgetHold is the budget rung's wait and stop (workflows/budget,
	// through budget()).
	budgetHold budget.Hold
	// exprs are compiled conditions: edges' when, checks' verify and
	// expect (conditions.go).
	exprs conditions
	// mending is this generation's repair attempts per call node and the
	// arguments each call was tried with (workflows/mend, through mend()).
	mending mend.Attempts
	// asked is what package model remembers of this generation's
	// requests (model_call.go).
	asked model.Memory
	// streaming is the step's model request while its reply streams
	// (stream.go).
	streaming *streaming
	// life is the run's life in this generation: running, switching,
	// interrupted, handing over, closing, ended (package life).
	life life.Life
	// edits are what this generation remembers of a person's edits
	// (package edit, through edit()): the edit accepted and its answer,
	// and the calls waiting for approval whose arguments a person edited.
	edits edit.Memory
	// handoffMemory is what this generation remembers of its handoffs
	// (workflows/handoff, through handoffs()).
	handoffMemory handoff.Memory
	// waits: when each wait for people began (package waiting).
	waits waiting.Starts
	// waitingShown is the memo of calls waiting this generation upserted
	// last, as JSON (phase.go).
	waitingShown string
	// guard turns a panic into a stop of the run (guard.go).
	guard runGuard
	// shape is the run's shape, free-form or graph (shape.go).
	shape stepShape
	// parked are the calls waiting out an outage now (pipeline.park).
	parked outage.Parked
	// notices are the webhooks' notices this generation sent (notify.go).
	notices []workflow.Future
	// startFailed is why the run failed at its start, for the queries
	// asked of it afterwards ("": it did not).
	startFailed string
	// carried: the state is carried into the next generation already; a
	// message taken now would be left behind.
	carried bool
	// acceptedIn is the workflow task (taskOf) that took an update last
	// (closeApart); 0: none did.
	acceptedIn int
}

// toolSchema compiles a tool's parameters once per runner.
func (r *runner) toolSchema(t config.Tool) (*jsonschema.Schema, error) {
	return r.compiledSchema(t.Name, "tool "+t.Name+" parameters", t.Parameters)
}

// compiledSchema is a schema of the run's config compiled once a run, by
// key (a tool's name for its parameters).
func (r *runner) compiledSchema(key, where string, doc map[string]any) (*jsonschema.Schema, error) {
	if s, ok := r.toolSchemas[key]; ok {
		return s, nil
	}
	s, err := config.CompileSchema(where, doc)
	if err != nil {
		return nil, err
	}
	r.toolSchemas[key] = s
	return s, nil
}

// AgentWorkflow runs an agent until it produces an output, stops itself
// with a report (AgentStopped), or is cancelled.
func AgentWorkflow(ctx workflow.Context, in AgentInput) (res *AgentResult, err error) {
	// Queries and updates are answered from the first workflow task on
	// (while the agent resolves they answer that the run is starting),
	// never "unknown update"; signals wait in their channels until the
	// run exists.
	ctx = withRelease(ctx)
	r := &runner{}
	defer r.recoverRun(ctx, in.Agent, &res, &err)
	if err := r.registerQueries(ctx); err != nil {
		return nil, err
	}
	if err := r.registerUpdates(ctx); err != nil {
		return nil, err
	}
	built, err := guardedStart(ctx, in)
	if err != nil {
		markRefused(ctx, in.Agent)
		r.startFailed = errorText(err)
		handlers{r}.answerWaiting(ctx)
		_ = handlers{r}.closeApart(ctx)
		return nil, err
	}
	guard, accepted := r.guard, r.acceptedIn // an update may have panicked, or come, meanwhile
	*r = *built
	r.guard, r.acceptedIn = guard, accepted
	r.shape = shapeOf(r) // the copy's own: a shape holds its runner
	mainCtx, guarded := r.guardMain(ctx)
	r.waiting().ExpectCarried()
	r.guard.goGuarded(ctx, "the signal receiver", r.receiveSignals, nil)
	r.guard.goGuarded(ctx, "the watch on waits", r.waiting().Watch, nil)
	handsOver := r.handoffs().Start(ctx)
	// Runs carried from a version before handoffs have no registry.
	r.run.offerHandoff = handsOver && len(r.run.Spec.Agent.Handoffs) > 0 && len(r.run.Spec.Registry) > 0 && r.shape.offersHandoffTool()
	person := handsOver && r.run.Spec.Agent.Kind == config.KindHuman
	if !person && r.run.Turn.Waiting == "" { // a conversation waiting says so itself (turn.go)
		if err := r.setPhase(ctx, signals.PhaseRunning); err != nil {
			return nil, err
		}
	}
	res, err = r.runAgent(mainCtx, person)
	guarded(&res, &err)
	// A handler still at work (a fork waiting for its workflow to start)
	// finishes before the run closes; no new edit is taken meanwhile.
	var can *workflow.ContinueAsNewError
	live(r.life.End(errors.As(err, &can)))
	if ctx.Err() == nil {
		r.person().AnswerClosed(ctx, err)
		_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
		r.awaitNotices(ctx, errors.As(err, &can))
		if !errors.As(err, &can) {
			_ = handlers{r}.closeApart(ctx)
		}
	}
	guarded(&res, &err) // a handler that panicked meanwhile
	return res, err
}

// runAgent runs the agent in its shape: a person, a graph walk or the
// free-form loop.
func (r *runner) runAgent(ctx workflow.Context, person bool) (res *AgentResult, err error) {
	defer r.guard.recoverMain(ctx)
	hookGuard("the run's main coroutine")
	switch {
	case person:
		node, output, err := r.person().Agent(ctx)
		if output == nil {
			return nil, err
		}
		return r.outputs().complete(ctx, node, output)
	}
	return r.engine().runSteps(ctx)
}

// start builds the runner: a new run (resolving the agent in an activity)
// or the run carried over by continue-as-new.
func start(ctx workflow.Context, in AgentInput) (*runner, error) {
	carried := in.Continued != nil || len(in.ContinuedGzip) > 0
	if carried {
		if err := verifyCarried(ctx); err != nil {
			return nil, err
		}
	}
	if len(in.ContinuedGzip) > 0 {
		run, err := uncarryRun(in.ContinuedGzip)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError("input.continued_gzip: "+err.Error(), BadInputError, nil)
		}
		in.Continued = run
	}
	if in.Continued != nil {
		run := in.Continued
		if run.Spec == nil || len(run.Nodes) == 0 || run.NextID < len(run.Nodes) {
			return nil, temporal.NewNonRetryableApplicationError(
				`input.continued is the engine's own continue-as-new state and is not valid here: start runs without it`, BadInputError, nil)
		}
		run.Generation++
		return newRunner(run)
	}
	if len(in.Unknown) > 0 {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"input: unknown field(s) %s: a run takes agent, task, input, output_schema and from", strings.Join(in.Unknown, ", ")), BadInputError, nil)
	}
	if in.From != nil {
		return startFork(ctx, in)
	}
	if err := checkInput(in); err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), BadInputError, nil)
	}
	spec, err := resolveAgent(ctx, in.Agent, "resolve agent "+in.Agent)
	if err != nil {
		return nil, err
	}
	run := &Run{
		Input: in,
		Spec:  spec,
		Progress: Progress{State: map[string]any{}, HandoffPath: []string{}, Escalations: []Escalation{},
			ChainKeys: true},
	}
	r, err := newRunner(run)
	if err != nil {
		return nil, err
	}
	args := map[string]any{"task": in.Task, "input": inputOrEmpty(in.Input)}
	if in.By != "" {
		args["by"] = in.By // only then: a task's node is as it always was
	}
	task := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindTask, Status: signals.StatusCompleted, Args: mustJSON(args), By: in.By,
	}})
	run.Started(task.ID)
	return r, nil
}

func newRunner(run *Run) (*runner, error) {
	r := &runner{run: run, toolSchemas: map[string]*jsonschema.Schema{}, exprs: conditions{},
		waits: waiting.NewStarts()}
	r.shape = shapeOf(r)
	live(r.life.Start())
	if run.Visits == nil {
		run.Visits = map[string]int{}
	}
	loadNotRun(run)
	// Compiled now, so update validators (which must not change state)
	// only read the cache.
	for _, t := range run.Spec.Tools {
		if t.Parameters != nil {
			if _, err := r.toolSchema(t); err != nil {
				return nil, temporal.NewNonRetryableApplicationError(err.Error(), BadInputError, nil)
			}
		}
	}
	if run.Loops == nil {
		run.Loops = []signals.Loop{}
	}
	schema := run.Input.OutputSchema
	if schema == nil {
		schema = run.Spec.Agent.OutputSchema
	}
	if schema != nil {
		s, err := config.CompileSchema("output_schema", schema)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), BadInputError, nil)
		}
		r.outputSchema = s
	}
	return r, nil
}

// verifyCarried accepts carried state only on the run's own continue-as-new.
// Carried state holds the agent's spec (tools, approvals, policies): taken
// from a starter, it would let anyone who may start a run skip approvals or
// rewrite the agent. A first run has no continued execution; a cron run or
// a retry has one but starts again from the starter's input, so the server's
// record of the previous run is checked too (activity VerifyCarried).
func verifyCarried(ctx workflow.Context) error {
	refused := func(why string) error {
		return temporal.NewNonRetryableApplicationError("input.continued: carried state is accepted only on the run's own continue-as-new, never from a starter"+
			why+`: start runs with {"agent", "task", "input", "output_schema"} only`, BadInputError, nil)
	}
	previous := workflow.GetInfo(ctx).ContinuedExecutionRunID
	if previous == "" {
		return refused("")
	}
	// A local activity: the check is on the path of every edit and
	// continue-as-new, and needs no task of its own on the server.
	lctx := workflow.WithLocalActivityOptions(ctx, verifyLocalOptions())
	err := workflow.ExecuteLocalActivity(lctx, acts.VerifyCarried, previous).Get(ctx, nil)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.CarriedRefusedError {
		return refused(" (" + errorText(err) + ")")
	}
	return err // nil, or the run was cancelled
}

// checkInput refuses input the run could not start from, naming the field.
func checkInput(in AgentInput) error {
	var problems []string
	if strings.TrimSpace(in.Agent) == "" {
		problems = append(problems, `input.agent is empty: name an agent of the worker's config`)
	}
	if strings.TrimSpace(in.Task) == "" {
		problems = append(problems, `input.task is empty: say what the agent should do`)
	}
	if len(in.Input) > 0 && !isJSONObject(in.Input) {
		problems = append(problems, `input.input must be a JSON object`)
	}
	if len(in.By) > signals.MaxBy {
		problems = append(problems, fmt.Sprintf(`input.by is %d bytes, over the %d bytes it may hold (who gave the task: a name or an address)`, len(in.By), signals.MaxBy))
	}
	if in.OutputSchema != nil {
		if _, err := config.CompileSchema("input.output_schema", in.OutputSchema); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// beforeStep carries out policies.NextMove before each step of the loop or
// the graph walk: ok to take the step, or the run ends (continue-as-new,
// or a stop at the step ceiling) with err.
func (r *runner) beforeStep(ctx workflow.Context, graph bool) (ok bool, err error) {
	move, why := policies.NextMove(policies.StepView{
		ContinueAsNewSuggested: workflow.GetInfo(ctx).GetContinueAsNewSuggested(),
		Step:                   r.run.Step - max(r.run.AgentSince, r.run.Turn.Since),
		MaxSteps:               r.run.Spec.Agent.Policies.MaxSteps,
		Graph:                  graph,
	})
	switch move {
	case policies.MoveContinueAsNew:
		return false, r.continueAsNew(ctx)
	case policies.MoveStop:
		return false, r.stop(ctx, why)
	}
	return true, nil
}

// continueAsNew carries the whole run, not a summary, into a new run of
// the same workflow id, once every update handler has finished.
func (r *runner) continueAsNew(ctx workflow.Context) error {
	live(r.life.Close())
	r.person().AnswerContinued(ctx, r.run.Generation+1)
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	if err := (handlers{r}).closeApart(ctx); err != nil {
		return err
	}
	r.drainSignals(ctx)
	drainStreamed(ctx)
	in := r.run.Input
	if err := carryRun(&in, r.forCarry(ctx)); err != nil {
		return r.stop(ctx, err.Error())
	}
	r.carried = true
	return workflow.NewContinueAsNewError(ctx, WorkflowName, in)
}

// acts is used only for its method values: the activity names.
var acts *activities.Activities
