package person

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// fakeRun is a run as the waits see it, recording what they ask of it
// (the part alone; the run's own tests are in workflows/).
type fakeRun struct {
	spec    *config.Resolved
	trace   trace.Trace
	path    []string
	phase   signals.Phase
	phases  []signals.Phase
	added   []signals.Node
	counts  map[string]int64
	gate    bool
	gates   []Gate // the gates asked, in order
	started map[string]time.Time
	// carried: the waits a generation before began; notices: what the
	// waits told the webhooks.
	carried map[string]bool
	notices []Notice
	forgot  []string
	// interrupting, switching: the run's life; held: the human node a
	// generation before waited at.
	interrupting, switching bool
	held                    string
	unanswered              string
	notCarried              []error
	schema                  *jsonschema.Schema
}

var (
	errPausedEdit   = errors.New("interrupted by an edit")
	errPausedSwitch = errors.New("continuing as new while waiting")
)

func newFakeRun() *fakeRun {
	spec := &config.Resolved{
		Agent: config.Agent{Name: "clerk", Tools: []string{"book", "refund"}},
		Tools: []config.Tool{{Name: "book"}, {Name: "refund"}, {Name: "book_slowly"}},
	}
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	return &fakeRun{spec: spec, phase: signals.PhaseRunning, counts: map[string]int64{}, started: map[string]time.Time{}, path: []string{"clerk"}}
}

// call adds a call node to the trace, with status.
func (f *fakeRun) call(id, tool string, status signals.NodeStatus) {
	f.trace.Nodes = append(f.trace.Nodes, trace.Node{Node: signals.Node{ID: id, Kind: signals.KindCall, Tool: tool, Status: status}})
}

func (f *fakeRun) waits(s *State) *Waits { return New(f, s) }

func (f *fakeRun) Spec() *config.Resolved { return f.spec }
func (f *fakeRun) Trace() *trace.Trace    { return &f.trace }
func (f *fakeRun) HandoffPath() []string  { return f.path }
func (f *fakeRun) Phase() signals.Phase   { return f.phase }
func (f *fakeRun) SetPhase(_ workflow.Context, p signals.Phase) error {
	f.phase = p
	f.phases = append(f.phases, p)
	return nil
}
func (f *fakeRun) ShowDetails(workflow.Context) {}
func (f *fakeRun) Count(_ workflow.Context, name string, n int64, keyValues ...string) {
	f.counts[fmt.Sprint(name, keyValues)] += n
}
func (f *fakeRun) Gate(_ workflow.Context, g Gate) bool {
	f.gates = append(f.gates, g)
	return f.gate
}
func (f *fakeRun) AddNode(_ workflow.Context, n signals.Node, args, output any) string {
	n.ID = fmt.Sprintf("n%d", len(f.trace.Nodes)+1)
	if args != nil {
		n.Args, _ = json.Marshal(args)
	}
	if output != nil {
		n.Output, _ = json.Marshal(output)
	}
	f.trace.Nodes = append(f.trace.Nodes, trace.Node{Node: n})
	f.added = append(f.added, n)
	return n.ID
}
func (f *fakeRun) FinishNode(_ workflow.Context, id string, output any, errText string) {
	n := f.trace.Node(id)
	n.Status, n.Error = signals.StatusCompleted, errText
	if errText != "" {
		n.Status = signals.StatusFailed
	}
	if output != nil {
		n.Output, _ = json.Marshal(output)
	}
}
func (f *fakeRun) Checkpoint(string)                {}
func (f *fakeRun) RanAs(id string, v any)           { f.trace.Node(id).RanAs, _ = json.Marshal(v) }
func (f *fakeRun) UnknownTool(n string) string      { return fmt.Sprintf("unknown tool %q", n) }
func (f *fakeRun) OutputSchema() *jsonschema.Schema { return f.schema }

// HumanApproval answers as the graph shape does, from the spec's graph.
func (f *fakeRun) HumanApproval(node string) config.Approval {
	if f.spec.Agent.Graph == nil {
		return config.Approval{}
	}
	return f.spec.Agent.Graph.Nodes[node].Approval
}
func (f *fakeRun) CheckArgs(_ config.Tool, args json.RawMessage) string {
	if !json.Valid(args) {
		return "the arguments are not JSON"
	}
	return ""
}

func (f *fakeRun) HumanTimeout() time.Duration { return f.spec.Agent.Policies.HumanTimeout.D() }
func (f *fakeRun) Started(ctx workflow.Context, node string) time.Time {
	if since, ok := f.started[node]; ok {
		return since
	}
	f.started[node] = workflow.Now(ctx)
	return f.started[node]
}
func (f *fakeRun) Carried(node string) bool            { return f.carried[node] }
func (f *fakeRun) Notify(_ workflow.Context, n Notice) { f.notices = append(f.notices, n) }
func (f *fakeRun) Forget(node string) {
	delete(f.started, node)
	f.forgot = append(f.forgot, node)
}
func (f *fakeRun) Interrupting() bool { return f.interrupting }
func (f *fakeRun) Switching() bool    { return f.switching }
func (f *fakeRun) Paused(end End) error {
	if end == Switching {
		return errPausedSwitch
	}
	return errPausedEdit
}
func (f *fakeRun) Cancelled(_ workflow.Context, _ string, err error) error { return err }
func (f *fakeRun) HeldHuman() string {
	id := f.held
	f.held = ""
	return id
}

func (f *fakeRun) TakeHeldHuman()                                 {}
func (f *fakeRun) ContinueWaiting(workflow.Context, string) error { return errPausedSwitch }
func (f *fakeRun) ApplyEdit(workflow.Context) error               { return errPausedEdit }
func (f *fakeRun) Stop(_ workflow.Context, reason string) error {
	return errors.New("stopped: " + reason)
}
func (f *fakeRun) ContinueAsNew(workflow.Context) error { return errors.New("continued as new") }
func (f *fakeRun) HandBack(workflow.Context, string, *signals.ReplyRequest, string) (bool, string, error) {
	return true, "", nil
}

func (f *fakeRun) Unanswered() string { return f.unanswered }
func (f *fakeRun) NotCarried(_ workflow.Context, _ string, err error) {
	f.notCarried = append(f.notCarried, err)
	f.unanswered = ""
}
