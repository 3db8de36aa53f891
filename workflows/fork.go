package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
)

// A fork's run: the source read whole, the agent resolved from the
// worker's config, the edit applied at the fork's node (package edit),
// what followed the node dropped. The edit that starts a fork is package
// edit's too.

// checkFork refuses a fork's input that would not say where it starts.
func checkFork(in AgentInput) error {
	var problems []string
	f := in.From
	if strings.TrimSpace(f.WorkflowID) == "" {
		problems = append(problems, `input.from.workflow_id is empty: name the run to fork`)
	}
	if strings.TrimSpace(f.NodeID) == "" {
		problems = append(problems, `input.from.node_id is empty: name the node to fork from (the trace query lists them)`)
	}
	if in.Task != "" || len(in.Input) > 0 || in.OutputSchema != nil {
		problems = append(problems, `input: a fork takes the task, input and output_schema of the run it forks: to change the task, edit its task node (from.edit)`)
	}
	if len(f.Edit) > 0 && string(f.Edit) != "null" {
		if _, err := forkEdit(f); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// forkEdit is the edit a fork applies at its node: the one from.edit
// gives, or none (the node keeps its value; what followed runs again).
func forkEdit(f *ForkFrom) (*signals.EditRequest, error) {
	if len(f.Edit) == 0 || string(f.Edit) == "null" {
		return nil, nil
	}
	var e signals.EditRequest
	dec := json.NewDecoder(bytes.NewReader(f.Edit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf(`input.from.edit: want {"output"?, "args"?, "by"?, "reason"?}: %v`, err)
	}
	if e.NodeID != "" && e.NodeID != f.NodeID {
		return nil, fmt.Errorf("input.from.edit.node_id is %q but from.node_id is %q: give the node once, in from.node_id", e.NodeID, f.NodeID)
	}
	e.NodeID = f.NodeID
	if e.Fork {
		return nil, fmt.Errorf(`input.from.edit.fork: the run is the fork already`)
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("input.from.%v", err)
	}
	return &e, nil
}

// startFork builds a fork's run: the source read whole, the agent resolved
// from the worker's config, the edit applied, what followed the node
// dropped.
func startFork(ctx workflow.Context, in AgentInput) (*runner, error) {
	bad := func(msg string) error { return temporal.NewNonRetryableApplicationError(msg, BadInputError, nil) }
	if err := checkFork(in); err != nil {
		return nil, bad(err.Error())
	}
	actx := workflow.WithActivityOptions(ctx, withSummary(forkReadOptions(), "read run "+in.From.WorkflowID+" to fork it"))
	var read workflow.Future
	if in.From.RunID != "" && versionOf(ctx, versionArchiveTrace, 1) >= 1 {
		read = workflow.ExecuteActivity(actx, acts.ReadRunAt, activities.RunRef{WorkflowID: in.From.WorkflowID, RunID: in.From.RunID})
	} else {
		read = workflow.ExecuteActivity(actx, acts.ReadRun, in.From.WorkflowID)
	}
	src, err := readSource(ctx, read, fmt.Sprintf("input.from.workflow_id: run %q", in.From.WorkflowID))
	if err != nil {
		return nil, err
	}
	if src, err = holderOf(ctx, actx, src, in.From); err != nil {
		return nil, err
	}
	agent := src.Spec.Agent.Name
	if in.Agent != "" && in.Agent != agent {
		return nil, bad(fmt.Sprintf("input.agent is %q but run %q is agent %q: a fork goes on with the agent of its source (leave agent out)", in.Agent, in.From.WorkflowID, agent))
	}
	spec, err := resolveAgent(ctx, agent, "resolve agent "+agent)
	if err != nil {
		return nil, err
	}
	run := forkedRun(src, spec, in.From.NodeID)
	run.ChainKeys = true
	r, err := newRunner(run)
	if err != nil {
		return nil, err
	}
	e, _ := forkEdit(in.From)
	if e == nil {
		e = &signals.EditRequest{NodeID: in.From.NodeID}
	}
	// The source's records of messages after the node (its edits, the
	// forks it started, signals it ignored) are its own history.
	var later []string
	if at := run.nodeIndex(e.NodeID); at >= 0 {
		for _, n := range run.Nodes[at+1:] {
			if n.Kind == signals.KindEdit || (n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped) {
				later = append(later, n.ID)
			}
		}
	}
	res, err := r.edit().Apply(ctx, *e, true)
	if err != nil {
		return nil, bad("input.from: " + strings.TrimPrefix(err.Error(), "edit: "))
	}
	boundBySpec(run)
	dropped := append(slices.Clone(res.Invalidated), later...)
	r.run.Drop(dropped)
	run.Spending = forkSpending(run, keepsArchivedSpend(ctx, run.Archived))
	if n := run.node(res.NodeID); n != nil {
		n.Output = mustJSON(map[string]any{
			"invalidated": []string{},
			"dropped":     res.Invalidated, // never nil: edit.Apply answers an empty list
			"forked_from": map[string]string{"workflow_id": in.From.WorkflowID, "node_id": in.From.NodeID},
			// What the kept nodes cost: the fork starts with that spend.
			"spend_kept": r.budget().Spent(r.seenAt),
		})
	}
	return r, nil
}

// maxArchiveHops bounds the closed generations a fork reads back through.
const maxArchiveHops = 1000

// holderOf is the generation of the source that holds the fork's node:
// the source read, or, when its trace's archived part has the node and
// the input names no run, the closed generation its archive names (and
// so on back). The contract's form, {workflow_id, node_id}, so forks
// from any node of a long run. Runs recorded before fork-archived were
// refused with the run id to give; the version is asked only then.
func holderOf(ctx, actx workflow.Context, src *Run, from *ForkFrom) (*Run, error) {
	read := map[string]bool{}
	for hops := 0; from.RunID == "" && src.isArchived(from.NodeID); hops++ {
		if hops == 0 && versionOf(ctx, versionForkArchived, 1) < 1 {
			break
		}
		a := src.Archived
		if hops >= maxArchiveHops || a.RunID == "" || read[a.RunID] {
			break // the edit below refuses it, naming the run to fork
		}
		read[a.RunID] = true
		older, err := readSource(ctx, workflow.ExecuteActivity(actx, acts.ReadRunAt, activities.RunRef{WorkflowID: a.WorkflowID, RunID: a.RunID}),
			fmt.Sprintf("input.from: generation %d of run %q (run id %s), which holds node %s,", a.Generation, a.WorkflowID, a.RunID, from.NodeID))
		if err != nil {
			return nil, err
		}
		src = older
	}
	return src, nil
}

// readSource is the run a fork's read answered; what names the read for
// the refusal of an answer that is not a run of unstuck.
func readSource(ctx workflow.Context, read workflow.Future, what string) (*Run, error) {
	var packed []byte
	if err := read.Get(ctx, &packed); err != nil {
		return nil, err
	}
	src, err := uncarryRun(packed)
	if err != nil || src.Spec == nil {
		return nil, temporal.NewNonRetryableApplicationError(what+" answered something that is not a run of unstuck", BadInputError, nil)
	}
	return src, nil
}

// forkedRun is the source run as a fork from its node at starts from it:
// the worker's spec, a first generation, and the trace forked there
// (trace.Trace.Forked).
func forkedRun(src *Run, spec *config.Resolved, at string) *Run {
	run := src
	run.Spec = spec
	run.Input.From, run.Input.Continued, run.Input.ContinuedGzip = nil, nil, nil
	run.Input.Agent = spec.Agent.Name
	run.Generation, run.Resume, run.Phase = 0, nil, signals.PhaseRunning
	run.IgnoredSignals, run.IgnoredByKind = 0, nil
	run.Forked(at)
	return run
}

// boundBySpec holds a fork to the worker's policies. What the fork
// restored (the loop escape and counters at its node) is the source's
// answer to a query, and anyone who runs a worker in the namespace can
// answer for a workflow id of their own: a step counter below zero would
// lift max_steps, a ladder without rungs or a detector or breaker with
// other bounds would lift the agent's loop escape. What is not as the
// config says starts afresh; a genuine source under the same config keeps
// all of it.
func boundBySpec(run *Run) {
	run.LoopEscape.BoundBy(run.Spec.Agent.Policies)
	run.Step = max(run.Step, 0)
	run.OutputFailures = max(run.OutputFailures, 0)
	// The step ceiling counts from AgentSince: one past the step counter
	// would lift it.
	run.AgentSince = min(max(run.AgentSince, 0), run.Step)
}

// packRun is the whole run as the QueryRun query answers it.
func packRun(run *Run) ([]byte, error) {
	data, err := json.Marshal(run)
	if err != nil {
		return nil, err
	}
	gz := gzipped(data)
	if len(gz) > maxCarried {
		return nil, fmt.Errorf("the run is %d KiB compressed, over the %d KiB a fork can read", len(gz)>>10, maxCarried>>10)
	}
	return gz, nil
}

// forkReadOptions: reading the source run. A source that does not exist
// or is not a run is final; anything else is retried for a while.
func forkReadOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        30 * time.Second,
			MaximumAttempts:        10,
			NonRetryableErrorTypes: []string{activities.ForkSourceError},
		},
	}
}

// forkSpending is a fork's spend: what the nodes it keeps cost, by the
// agent that spent it, with archived, those of the trace's archived part
// (startFork left out what the source archived after the fork's node); no
// raise and a new wall time (the fork is a new run). The source's own
// answer is not taken for it.
func forkSpending(run *Run, archived bool) budget.Spending {
	var out budget.Spending
	if a := run.Archived; a != nil && archived {
		// Added into maps: the order does not matter.
		//workflowcheck:ignore
		for agent, s := range a.Spent {
			out.Add(agent, *s)
		}
		for _, n := range a.SpentAfter {
			out.Add(n.Agent, n.Spent)
		}
	}
	for i := range run.Nodes {
		if n := &run.Nodes[i]; n.Spent != nil {
			out.Add(n.Agent, *n.Spent)
		}
	}
	return out
}

// keepsArchivedSpend says whether a fork counts the spend of its source's
// archived part a (version fork-archived-spend, asked only when there is
// some).
func keepsArchivedSpend(ctx workflow.Context, a *Archive) bool {
	return a != nil && (len(a.Spent) > 0 || len(a.SpentAfter) > 0) && versionOf(ctx, versionForkArchivedSpend, 1) >= 1
}
