package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// `unstuck demo edit`: the stock analyst of the demo config on the
// scripted model (a test double), whose first thought is wrong. The demo
// does what a person would: it edits the thought with the edit message,
// through the same code as `unstuck edit`, approves the report the run
// then asks to write, through the same code as `unstuck approve`, and
// shows the answer following the edit.

const (
	demoEditAgent = "stocks"
	demoEditTask  = "Analyse AAPL and file a report with a BUY, HOLD or SELL recommendation"
	// demoEditThought is the thought as the person corrects it; the
	// scripted model goes by the thought it reads, so it recommends BUY.
	demoEditThought = "AAPL is trending up: the quote shows five rising closes. Recommend BUY."
	demoEditReason  = "the thought contradicts the quote: AAPL rose all week"
	demoEditWant    = "BUY"
	demoEditBy      = "demo"
	// demoEditWait bounds each wait of the scenario for the run to get
	// somewhere (a wait for approval, its result).
	demoEditWait = 2 * time.Minute
)

var editScenario = demoScenario{run: runDemoEdit, scripted: true}

func newDemoEditCmd(o *demoOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "edit",
		Short: "Run the edit scenario: correct an agent's wrong thought mid-run, then approve its write",
		Long: `demo edit starts what "unstuck demo" starts (a Temporal dev server, the
scripted model server, a TEST DOUBLE, and the worker with the demo config),
then runs the stock analyst agent "` + demoEditAgent + `" on
  "` + demoEditTask + `".
It always runs on the scripted model, even when OPENAI_BASE_URL is set: the
scenario is its script's story (the agent names its own endpoint in the config).

  1. The model thinks
       "` + scriptedmodel.StockThought + `"
     (wrong: the quote it looks up with get_quote shows a rising week), then
     asks to write a SELL report with write_report, a write that waits for
     approval (approval: always).
  2. The demo, as a person would, sends the edit message (as "unstuck edit"
     does) replacing that thought with
       "` + demoEditThought + `"
     and prints what the edit invalidated and the run's new generation: the
     run continues as new under the same workflow id, from the edited request.
     The SELL report never ran (it was waiting for approval); get_quote, which
     the edit left as it was, is kept: the quote is not fetched again.
  3. The model, asked again with the edited thought in the conversation, asks
     to write a BUY report; the demo approves it (as "unstuck approve" does).
  4. The run ends with the report: the final answer follows the edit.

At the end it prints the trace (edits included) and the plain temporal
commands that send the same edit and approval. The scripted model is a test
double: it recommends what the thought it reads recommends, nothing more.`,
		Example: `  bin/unstuck demo edit --temporal bin/temporal --worker bin/unstuck-worker
  bin/unstuck demo edit --once --port 7300 --ui-port 8300 --data /tmp/demo   # exit after the run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), *o, editScenario)
		},
	}
}

// runDemoEdit runs the edit scenario on a server, model and worker that
// are up, printing each step; the error says which step went wrong.
func runDemoEdit(ctx context.Context, out io.Writer, o demoOptions, c client.Client, worker *child.Process, address string) error {
	id := "demo-edit-" + time.Now().UTC().Format("20060102-150405")
	fmt.Fprintf(out, "» running agent %q on %q (workflow id %s)\n", demoEditAgent, demoEditTask, id)
	in := workflows.AgentInput{Agent: demoEditAgent, Task: demoEditTask}
	run, err := c.ExecuteWorkflow(ctx, withRunMetadata(client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionTimeout: 10 * time.Minute,
	}, in), workflows.WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start the demo run: %w", err)
	}
	firstRun := run.GetRunID() // before Get follows the runs (and GetRunID with it)
	f := followLatest(ctx, c, run, worker)
	// The messages go the way `unstuck edit` and `unstuck approve` send
	// them: their own connection, the latest run of the workflow id.
	sender := &cli{address: address, namespace: app.DefaultNamespace, dial: o.dial}
	if sender.dial == nil {
		sender.dial = dialTemporal
	}
	var msgOut bytes.Buffer // what they print, shown indented
	msgCmd := &cobra.Command{}
	msgCmd.SetOut(&msgOut)
	failed := func(step string, err error) error {
		fmt.Fprintf(out, "\nThe edit demo stopped at %s: %v\n%s\n", step, err, o.runLinks(id))
		return fmt.Errorf("%s: %w", step, err)
	}

	demoStep(out, 1, "the model thinks, looks the quote up and asks to write a report, which waits for approval")
	first, err := f.untilApproval(ctx, out, 0)
	if err != nil {
		return failed("step 1", err)
	}
	tr, err := queryTrace(ctx, c, id, "")
	if err != nil {
		return failed("step 1", err)
	}
	wrong, ok := firstThought(tr)
	if !ok {
		return failed("step 1", errors.New("the trace has no model request with a thought"))
	}
	fmt.Fprintf(out, "\n  The thought of %s is wrong: %q\n", wrong.id, wrong.thought)
	if q, ok := callOf(tr, "get_quote"); ok {
		fmt.Fprintf(out, "  The quote it looked up (%s) says otherwise: %s\n", q.ID, quoteSummary(q.Output))
	}
	fmt.Fprintf(out, "  Yet %s waits for approval to write %s\n", first.CallID, compactJSON(first.Args))

	demoStep(out, 2, "a person edits the thought (the edit message), as `unstuck edit` sends it")
	edit := editFlags{node: wrong.id, outputText: demoEditThought, outputTextSet: true, by: demoEditBy, reason: demoEditReason}
	editReq, err := edit.request()
	if err != nil {
		return failed("step 2", err)
	}
	fmt.Fprintf(out, "  $ unstuck edit %s --node %s --output-text %s --by %s --reason %s\n",
		id, wrong.id, shellQuote(demoEditThought), demoEditBy, shellQuote(demoEditReason))
	if err := sender.edit(ctx, msgCmd, id, editOptions{editFlags: edit}, editReq); err != nil {
		return failed("step 2", err)
	}
	printIndented(out, &msgOut)
	fmt.Fprintf(out, "  %s had not run (it was waiting for approval), so nothing needs undoing.\n", first.CallID)

	demoStep(out, 3, "the next generation goes on from the edited request: what the edit invalidated is marked so,\n"+
		"   get_quote (which the edit left as it was) is kept, and the model, reading the edited thought, asks to write another report")
	second, err := f.untilApproval(ctx, out, 1)
	if err != nil {
		return failed("step 3", err)
	}
	fmt.Fprintf(out, "\n  %s waits for approval to write %s\n", second.CallID, compactJSON(second.Args))
	if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		if latest := d.GetWorkflowExecutionInfo().GetExecution().GetRunId(); latest != firstRun {
			fmt.Fprintf(out, "  Same workflow id %s, a new run: %s continued as new as %s, generation 1.\n", id, firstRun, latest)
		}
	}

	demoStep(out, 4, "a person approves the report (the approve message), as `unstuck approve` sends it")
	approve := approveOptions{callID: second.CallID, decision: signals.DecisionApprove, by: demoEditBy, reason: "the report follows the quote"}
	approveReq, err := approve.request()
	if err != nil {
		return failed("step 4", err)
	}
	fmt.Fprintf(out, "  $ unstuck approve %s --call-id %s --decision approve --by %s --reason %s\n",
		id, second.CallID, demoEditBy, shellQuote(approve.reason))
	if err := sender.approve(ctx, msgCmd, id, approve, approveReq); err != nil {
		return failed("step 4", err)
	}
	printIndented(out, &msgOut)
	res, err := f.result(ctx, out)
	if err != nil {
		return failed("step 4", err)
	}

	fmt.Fprintln(out)
	if tr, err := queryTrace(ctx, c, id, ""); err == nil {
		fmt.Fprintln(out, "Trace (the latest run; invalidated nodes stay in it, marked so):")
		if err := renderTable(out, tr); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "Completed in %d steps, generation %d. Output:\n%s\n\n", res.Steps, res.Generation, indentJSON(res.Output))
	got := recommendationOf(res.Output)
	if got != demoEditWant {
		err := fmt.Errorf("the final answer recommends %q, not %s as the edited thought does", got, demoEditWant)
		return failed("the end", err)
	}
	fmt.Fprintf(out, "The final answer follows the edit: %s (the model's own thought said SELL).\n\n", got)
	fmt.Fprintln(out, "The same edit and approval with the plain Temporal CLI (while the run waits, as above):")
	fmt.Fprintln(out, temporalUpdateLine(o.temporal, address, id, signals.Edit, editReq))
	fmt.Fprintln(out, temporalUpdateLine(o.temporal, address, id, signals.Approve, approveReq))
	fmt.Fprintf(out, "\n%s\n", o.runLinks(id))
	fmt.Fprintf(out, "Try:     TEMPORAL_ADDRESS=%s bin/unstuck trace %s\n", address, id)
	fmt.Fprintf(out, "         TEMPORAL_ADDRESS=%s bin/unstuck status %s\n", address, id)
	return nil
}

func demoStep(out io.Writer, n int, what string) {
	fmt.Fprintf(out, "\n── Step %d: %s\n\n", n, what)
}

// printIndented prints what a command printed, indented, and empties it.
func printIndented(out io.Writer, b *bytes.Buffer) {
	for line := range strings.Lines(b.String()) {
		fmt.Fprint(out, "  "+line)
	}
	b.Reset()
}

// quoteSummary is a get_quote result in a few words: its closes and
// change, or its JSON.
func quoteSummary(raw json.RawMessage) string {
	var q struct {
		Closes []float64 `json:"closes_5d"`
		Change *float64  `json:"change_5d_pct"`
		Data   string    `json:"data"`
	}
	if json.Unmarshal(raw, &q) != nil || len(q.Closes) < 2 || q.Change == nil {
		return policies.ClipText(oneLine(compactJSON(raw)), 160)
	}
	closes := make([]string, len(q.Closes))
	for i, c := range q.Closes {
		closes[i] = fmt.Sprint(c)
	}
	return fmt.Sprintf("closes %s, %+.2f%% over %d sessions (%s)", strings.Join(closes, " → "), *q.Change, len(q.Closes), q.Data)
}

// latestFollower follows a workflow id across its runs (an edit continues
// it as new): it prints each trace node of the latest run as it appears or
// changes, and knows when the chain of runs ends.
type latestFollower struct {
	c      client.Client
	id     string
	worker *child.Process
	shown  map[string]signals.NodeStatus
	done   chan error
	res    workflows.AgentResult
	// onNode, if set, is called with each node printed, after it.
	onNode func(signals.Node)
}

func followLatest(ctx context.Context, c client.Client, run client.WorkflowRun, worker *child.Process) *latestFollower {
	f := &latestFollower{c: c, id: run.GetID(), worker: worker, shown: map[string]signals.NodeStatus{}, done: make(chan error, 1)}
	// Get follows the runs an edit continues as new to the last one.
	go func() { f.done <- run.Get(ctx, &f.res) }()
	return f
}

// untilApproval waits until the latest run, in generation gen, has a call
// waiting for approval, and answers it.
func (f *latestFollower) untilApproval(ctx context.Context, out io.Writer, gen int) (signals.PendingApproval, error) {
	var found signals.PendingApproval
	err := f.until(ctx, out, func(st signals.Status) bool {
		if st.Generation != gen || len(st.PendingApprovals) == 0 {
			return false
		}
		found = st.PendingApprovals[0]
		return true
	})
	return found, err
}

// until prints new nodes until the latest run's status satisfies ok. The
// run ending first (errRunEnded, or why it failed), the worker exiting or
// demoEditWait passing is an error.
func (f *latestFollower) until(ctx context.Context, out io.Writer, ok func(signals.Status) bool) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(demoEditWait)
	for {
		select {
		case err := <-f.done:
			f.done <- err // for the next wait
			f.printNew(ctx, out)
			if err != nil {
				return describeRunError(err)
			}
			return errRunEnded
		case <-tick.C:
			if f.worker.HasExited() {
				return fmt.Errorf("the worker exited: %s", exitedText(f.worker))
			}
			f.printNew(ctx, out)
			var st signals.Status
			if err := queryLatest(ctx, f.c, f.id, signals.QueryStatus, &st); err == nil && ok(st) {
				f.printNew(ctx, out)
				return nil
			}
		case <-deadline:
			return fmt.Errorf("the run did not get there within %s", demoEditWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// printNew prints the latest run's new nodes, each followed by onNode.
func (f *latestFollower) printNew(ctx context.Context, out io.Writer) {
	printNewNodes(ctx, out, f.c, f.id, "", f.shown, f.onNode)
}

// errRunEnded: the run completed before the status a wait was for.
var errRunEnded = errors.New("the run completed before it got there")

// result waits for the last run's result, printing new nodes meanwhile.
func (f *latestFollower) result(ctx context.Context, out io.Writer) (*workflows.AgentResult, error) {
	err := f.until(ctx, out, func(signals.Status) bool { return false })
	if !errors.Is(err, errRunEnded) {
		return nil, err
	}
	return &f.res, nil
}

// queryLatest asks the latest run of a workflow id for a query.
func queryLatest(ctx context.Context, c client.Client, id, name string, out any) error {
	v, err := c.QueryWorkflow(ctx, id, "", name)
	if err != nil {
		return err
	}
	return v.Get(out)
}

// thoughtNode is a model request and the text of its reply.
type thoughtNode struct{ id, thought string }

// firstThought is the first completed model request with a thought.
func firstThought(tr signals.Trace) (thoughtNode, bool) {
	for _, n := range tr.Nodes {
		if n.Kind != signals.KindRequest || n.Status != signals.StatusCompleted {
			continue
		}
		var reply struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(n.Output, &reply) == nil && strings.TrimSpace(reply.Content) != "" {
			return thoughtNode{id: n.ID, thought: reply.Content}, true
		}
	}
	return thoughtNode{}, false
}

// callOf is the first completed call of tool.
func callOf(tr signals.Trace, tool string) (signals.Node, bool) {
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == tool && n.Status == signals.StatusCompleted {
			return n, true
		}
	}
	return signals.Node{}, false
}

// recommendationOf reads the recommendation of the stock agent's output.
func recommendationOf(output json.RawMessage) string {
	var out struct {
		Recommendation string `json:"recommendation"`
	}
	_ = json.Unmarshal(output, &out)
	return out.Recommendation
}

// temporalUpdateLine is the plain Temporal CLI command sending an update
// (edit, approve) with req as its input, to the latest run of id.
func temporalUpdateLine(temporal, address, id, name string, req any) string {
	return fmt.Sprintf("  %s workflow update execute --address %s --workflow-id %s --name %s \\\n    --input %s",
		temporal, address, id, name, shellQuote(payloadJSON(req)))
}

// payloadOrder is the order payloadJSON writes a message's fields in: what
// it acts on, what it changes, then who and why (the JSON of the message
// types has the audit first, as it is embedded first).
var payloadOrder = []string{"node_id", "call_id", "decision", "output", "args", "call", "fork", "by", "reason"}

// payloadJSON is req as JSON on one line, its fields in payloadOrder
// (any other field after them, in name order).
func payloadJSON(req any) string {
	raw, err := json.Marshal(req)
	if err != nil {
		return fmt.Sprintf("%q", err.Error())
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return string(raw)
	}
	keys := slices.Sorted(maps.Keys(fields))
	slices.SortStableFunc(keys, func(a, b string) int {
		return cmp.Compare(fieldRank(a), fieldRank(b))
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		name, _ := json.Marshal(k)
		fmt.Fprintf(&b, "%s: %s", name, fields[k])
	}
	b.WriteByte('}')
	return b.String()
}

func fieldRank(name string) int {
	if i := slices.Index(payloadOrder, name); i >= 0 {
		return i
	}
	return len(payloadOrder)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
