package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// `unstuck demo handoff`: seed 004's customer-service chain on the
// scripted model (a test double). A customer's question goes to the
// general agent, which hands it on; orders looks the order up and tries
// to hand it back (refused: general is already in the handoff path), so
// refunds takes it, refunds the order and hands the sign-off to a person.
// The demo shows each handoff as it happens and the agent the run is
// listed under, then answers as that person, through the same code as
// `unstuck reply`.

const (
	demoHandoffAgent  = "general"
	demoHandoffTask   = "Where is my order 1234? It arrived broken, I want my money back."
	demoHandoffInput  = `{"user": "cust-42"}`
	demoHandoffPerson = "supervisor"
	demoHandoffBy     = "demo"
	demoHandoffText   = "Signed off: the refund for order 1234 stands."
	// demoHandoffListWait bounds the wait for visibility to list the run
	// under the agent that took it.
	demoHandoffListWait = 10 * time.Second
)

// demoHandoffPath is the chain the scenario goes through.
var demoHandoffPath = []string{"general", "orders", "refunds", "supervisor"}

var handoffScenario = demoScenario{run: runDemoHandoff, scripted: true}

func newDemoHandoffCmd(o *demoOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "handoff",
		Short: "Run the handoff scenario: a customer-service chain hands a customer on, down to a person",
		Long: `demo handoff starts what "unstuck demo" starts (a Temporal dev server, the
scripted model server, a TEST DOUBLE, and the worker with the demo config),
then runs the customer-service agent "` + demoHandoffAgent + `" on
  "` + demoHandoffTask + `"
for the user cust-42. It always runs on the scripted model, even when
OPENAI_BASE_URL is set: the scenario is its scripts' story (the agents name
their own endpoint in the config).

  1. general hands the customer over without naming anyone: the run picks
     the best-placed agent by capabilities and description (orders), and
     refuses the others, each with why (no capability match, ...).
  2. orders looks the order up (lookup_order) and names general to take it
     back: refused, general is already in the handoff path (a run never
     bounces back), so the next candidate, refunds, takes it.
  3. refunds refunds the order's total, read from the handoff context
     (issue_refund), and hands the sign-off to a person: the supervisor, an
     agent of kind human. The run waits for them (phase awaiting_human).
  4. The demo answers as that person with the reply message (as
     "unstuck reply --output" sends it), which completes the run.

Each handoff is printed as it happens: from and to, the reason, the
candidates refused and why, and the agent the run is then listed under
(search attribute AgentName: each handoff continues the run as new, under
the same workflow id, as the agent that took it). At the end: the result
with its handoff_path, the trace, and the plain temporal commands to look
the run up. The scripted models are test doubles: they play the story, no
more.`,
		Example: `  bin/unstuck demo handoff --temporal bin/temporal --worker bin/unstuck-worker
  bin/unstuck demo handoff --once --port 7300 --ui-port 8300 --data /tmp/demo   # exit after the run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), *o, handoffScenario)
		},
	}
}

// runDemoHandoff runs the handoff scenario on a server, model and worker
// that are up, printing each step; the error says which step went wrong.
func runDemoHandoff(ctx context.Context, out io.Writer, o demoOptions, c client.Client, worker *child.Process, address string) error {
	id := "demo-handoff-" + time.Now().UTC().Format("20060102-150405")
	fmt.Fprintf(out, "» running agent %q on %q for %s (workflow id %s)\n", demoHandoffAgent, demoHandoffTask, demoHandoffInput, id)
	in := workflows.AgentInput{Agent: demoHandoffAgent, Task: demoHandoffTask, Input: json.RawMessage(demoHandoffInput)}
	run, err := c.ExecuteWorkflow(ctx, withRunMetadata(client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionTimeout: 10 * time.Minute,
	}, in), workflows.WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start the demo run: %w", err)
	}
	f := followLatest(ctx, c, run, worker)
	f.onNode = func(n signals.Node) { printHandoff(ctx, out, c, id, n) }
	sender := &cli{address: address, namespace: app.DefaultNamespace, dial: o.dial}
	if sender.dial == nil {
		sender.dial = dialTemporal
	}
	var msgOut bytes.Buffer
	msgCmd := &cobra.Command{}
	msgCmd.SetOut(&msgOut)
	failed := func(step string, err error) error {
		fmt.Fprintf(out, "\nThe handoff demo stopped at %s: %v\n%s\n", step, err, o.runLinks(id))
		return fmt.Errorf("%s: %w", step, err)
	}

	demoStep(out, 1, "general takes the customer; each agent hands on what it cannot do, down to a person")
	var waiting signals.Status
	err = f.until(ctx, out, func(st signals.Status) bool {
		waiting = st
		return st.Phase == signals.PhaseAwaitingHuman
	})
	if err != nil {
		return failed("step 1", err)
	}
	fmt.Fprintf(out, "\n  The run waits for a person: agent %s (kind human), phase %s, handoff path %s.\n",
		waiting.Agent, waiting.Phase, strings.Join(waiting.HandoffPath, " -> "))
	if waiting.Agent != demoHandoffPerson {
		return failed("step 1", fmt.Errorf("the run waits with agent %q, not %s", waiting.Agent, demoHandoffPerson))
	}

	demoStep(out, 2, "the demo answers as the person (the reply message), as `unstuck reply` sends it")
	person := replyOptions{text: demoHandoffText, output: demoHandoffOutput(), by: demoHandoffBy, reason: "the refund matches the order total"}
	replyReq, err := person.request()
	if err != nil {
		return failed("step 2", err)
	}
	fmt.Fprintf(out, "  replying as the person: %s\n    (the demo speaks for agent %s, of kind human), with the output %s\n", person.text, demoHandoffPerson, person.output)
	fmt.Fprintf(out, "  $ unstuck reply %s --text %s --output %s --by %s\n", id, shellQuote(person.text), shellQuote(person.output), demoHandoffBy)
	if err := sender.reply(ctx, msgCmd, id, person, replyReq); err != nil {
		return failed("step 2", err)
	}
	printIndented(out, &msgOut)
	res, err := f.result(ctx, out)
	if err != nil {
		return failed("step 2", err)
	}

	fmt.Fprintln(out)
	if tr, err := queryTrace(ctx, c, id, ""); err == nil {
		fmt.Fprintln(out, "Trace (one run, handed on: each handoff continued it as new as the agent that took it):")
		if err := renderTable(out, tr); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "Completed by %s after %d steps, generation %d. Output:\n%s\n", res.Agent, res.Steps, res.Generation, indentJSON(res.Output))
	fmt.Fprintf(out, "handoff_path: %s\n", strings.Join(res.HandoffPath, " -> "))
	if !slices.Equal(res.HandoffPath, demoHandoffPath) {
		return failed("the end", fmt.Errorf("the handoff path is %v, not %v", res.HandoffPath, demoHandoffPath))
	}
	if listed, err := listedAgent(ctx, c, id, demoHandoffPerson); err == nil {
		fmt.Fprintf(out, "Listed under AgentName=%s.\n", listed)
	}
	fmt.Fprintln(out, "\nThe same reply with the plain Temporal CLI (while the run waits, as above):")
	fmt.Fprintln(out, temporalUpdateLine(o.temporal, address, id, signals.Reply, replyReq))
	fmt.Fprintf(out, "\n%s\n", o.runLinks(id))
	fmt.Fprintf(out, "Try:     TEMPORAL_ADDRESS=%s bin/unstuck trace %s\n", address, id)
	fmt.Fprintf(out, "         %s workflow list --address %s --query \"AgentName='%s'\"\n", o.temporal, address, demoHandoffPerson)
	return nil
}

// demoHandoffOutput is the person's output: what the supervisor's output
// schema asks for.
func demoHandoffOutput() string {
	return `{"resolution": "refund for order 1234 signed off by the supervisor"}`
}

// handoffArgs is what a handoff node records of the ask.
type handoffArgs struct {
	Trigger   string `json:"trigger"`
	Summary   string `json:"summary"`
	Suggested string `json:"suggested_next_action"`
}

// printHandoff prints a settled handoff node in full: from and to, the
// reason, the summary, each candidate refused and why, and, once taken,
// the agent visibility lists the run under.
func printHandoff(ctx context.Context, out io.Writer, c client.Client, id string, n signals.Node) {
	if n.Kind != signals.KindHandoff || (n.Status != signals.StatusCompleted && n.Status != signals.StatusFailed) {
		return
	}
	var ask handoffArgs
	_ = json.Unmarshal(n.Args, &ask)
	if n.Status == signals.StatusFailed {
		fmt.Fprintf(out, "     ⇒ handoff from %s failed: %s\n", n.From, oneLine(n.Error))
	} else {
		fmt.Fprintf(out, "     ⇒ handoff %s -> %s (reason: %s; asked by: %s)\n", n.From, n.To, orDash(n.Reason), handoffTrigger(ask.Trigger))
	}
	if ask.Summary != "" {
		fmt.Fprintf(out, "       summary: %s\n", oneLine(ask.Summary))
	}
	if ask.Suggested != "" {
		fmt.Fprintf(out, "       suggested next action: %s\n", oneLine(ask.Suggested))
	}
	for i, r := range n.Refused {
		label := "       refused: "
		if i > 0 {
			label = "                "
		}
		fmt.Fprintf(out, "%s%s: %s\n", label, r.Agent, oneLine(r.Why))
	}
	if n.Status != signals.StatusCompleted {
		return
	}
	// The run may have been handed on again since (two handoffs between
	// two looks): then it is listed under the agent it is with now.
	want, since := n.To, ""
	var st signals.Status
	if queryLatest(ctx, c, id, signals.QueryStatus, &st) == nil && len(st.HandoffPath) > 0 &&
		slices.Contains(st.HandoffPath, n.To) && st.HandoffPath[len(st.HandoffPath)-1] != n.To {
		want, since = st.HandoffPath[len(st.HandoffPath)-1], fmt.Sprintf(", handed on since from %s", n.To)
	}
	listed, err := listedAgent(ctx, c, id, want)
	switch {
	case err != nil:
		fmt.Fprintf(out, "       listed under: (visibility could not be read: %v)\n", err)
	case listed != want:
		fmt.Fprintf(out, "       listed under: AgentName=%s (visibility has not caught up with %s within %s)\n", orDash(listed), want, demoHandoffListWait)
	default:
		fmt.Fprintf(out, "       listed under: AgentName=%s (the run continued as new as %s%s)\n", listed, want, since)
	}
}

// handoffTrigger says who asked for a handoff, from its trigger.
func handoffTrigger(trigger string) string {
	switch trigger {
	case "tool":
		return "the model (handoff tool)"
	case "message":
		return "a person (handoff message)"
	case "ladder":
		return "the escalation ladder"
	case "rule":
		return "the agent's handoff_when rules"
	case "return":
		return "a person handing the run back"
	}
	return orDash(trigger)
}

// listedAgent is the AgentName search attribute visibility lists the
// workflow id's latest run under, waiting up to demoHandoffListWait for
// it to be want (visibility is eventually consistent). It answers the
// last value read, want or not.
func listedAgent(ctx context.Context, c client.Client, id, want string) (string, error) {
	deadline := time.Now().Add(demoHandoffListWait)
	query := fmt.Sprintf("WorkflowId = '%s'", strings.ReplaceAll(id, "'", "''"))
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: app.DefaultNamespace, Query: query})
		if err != nil {
			return "", err
		}
		got := ""
		for _, e := range resp.GetExecutions() {
			if e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
				continue // a run the chain has left
			}
			got = runmsg.Keyword(e.GetSearchAttributes().GetIndexedFields()[signals.AttrAgentName])
			break
		}
		if got == want || time.Now().After(deadline) {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
