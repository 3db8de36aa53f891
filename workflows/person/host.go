package person

import (
	"encoding/json"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Host is what the waits ask of the run they wait in.
type Host interface {
	Run
	Clock
	Ends
	Updates
	Notices
}

// Run is what the waits read of the run, and how they record in it.
type Run interface {
	// Spec is what the run decides on now; Trace its trace, read here and
	// moved by its own methods.
	Spec() *config.Resolved
	Trace() *trace.Trace
	// HandoffPath are the agents the run was with, the one now last.
	HandoffPath() []string
	// Phase is the run's phase; SetPhase shows another, ShowDetails
	// shows that what waits changed.
	Phase() signals.Phase
	SetPhase(ctx workflow.Context, phase signals.Phase) error
	ShowDetails(ctx workflow.Context)
	// Count adds n to the run's counter name, tagged by key-value pairs.
	Count(ctx workflow.Context, name string, n int64, keyValues ...string)
	// Gate says whether the run takes change g (workflow.GetVersion as the
	// run asks it, max version 1).
	Gate(ctx workflow.Context, g Gate) bool
	// AddNode adds n to the trace at the run's step, with args and output
	// encoded as the run encodes values (nil: none), and answers its id.
	AddNode(ctx workflow.Context, n signals.Node, args, output any) string
	// FinishNode settles node id with output (nil: none) or errText.
	FinishNode(ctx workflow.Context, id string, output any, errText string)
	// Checkpoint keeps at node id what an edit from there restores.
	Checkpoint(id string)
	// RanAs records on call id what a person changed before it ran.
	RanAs(id string, ranAs any)
	// CheckArgs says what is wrong with args for tool ("" nothing).
	CheckArgs(tool config.Tool, args json.RawMessage) string
	// UnknownTool says that the agent has no tool name, and which it has.
	UnknownTool(name string) string
	// OutputSchema is the run's output schema (nil: none).
	OutputSchema() *jsonschema.Schema
	// HumanApproval is a graph human node's approval block: who may reply
	// and by when (none in a free-form run).
	HumanApproval(node string) config.Approval
}

// Clock is what a wait reads of the run's life and of when its waits
// began.
type Clock interface {
	// HumanTimeout is how long the run waits for a person.
	HumanTimeout() time.Duration
	// Started is when the wait at node began (now, unless a generation
	// before began it); Forget forgets it: a later wait there has a whole
	// timeout.
	Started(ctx workflow.Context, node string) time.Time
	Forget(node string)
	// Carried says whether the wait at node began in a generation before
	// this one (its start came with the run).
	Carried(node string) bool
	// Interrupting: an edit or a person's handoff waits to be carried
	// out. Switching: the run continues as new while it waits.
	Interrupting() bool
	Switching() bool
	// Paused is the error that ends a wait that ended by end
	// (Interrupted, Switching) without stopping the run.
	Paused(end End) error
	// Cancelled is what a wait's err ends the run with: a cancellation
	// settles node and answers the run's cancelled error; any other err
	// is answered as it is.
	Cancelled(ctx workflow.Context, node string, err error) error
	// HeldHuman is the human node a generation that continued as new
	// while it waited waits at again, once ("" none).
	HeldHuman() string
}

// Ends are the ends of a run that a person's answer leads to.
type Ends interface {
	// TakeHeldHuman takes the wait a person agent's generation continued
	// as new in, as it starts.
	TakeHeldHuman()
	// ContinueWaiting continues the run as new, waiting at human node.
	ContinueWaiting(ctx workflow.Context, human string) error
	// ApplyEdit carries out the edit (or person's handoff) that came
	// first.
	ApplyEdit(ctx workflow.Context) error
	// Stop stops the run with the report, and answers its error.
	Stop(ctx workflow.Context, reason string) error
	// HandBack hands the run back to agent to with the person's reply,
	// after node parent; refused says why no agent took it (handed false).
	HandBack(ctx workflow.Context, to string, reply *signals.ReplyRequest, parent string) (handed bool, refused string, err error)
	// ContinueAsNew continues the run as new.
	ContinueAsNew(ctx workflow.Context) error
}

// Updates are the edit and handoff updates a person sent that wait for
// the run to carry them out.
type Updates interface {
	// Unanswered names the update (signals.Edit or signals.Handoff) that
	// waits ("" none); NotCarried answers it with err.
	Unanswered() string
	NotCarried(ctx workflow.Context, update string, err error)
}

// Notices tell the worker's webhooks that the run needs a person.
type Notices interface {
	// Notify has each of the run's webhooks that listens for n.Event told
	// of n. The run does not wait for them: a webhook that fails never
	// holds a run up.
	Notify(ctx workflow.Context, n Notice)
}

// Gate names a change of the waits' behaviour that running workflows
// must not see mid-run; the run maps it to its change id.
type Gate int

const (
	// GateAnswerPending: an update the run could not carry out is
	// answered, instead of its handler waiting.
	GateAnswerPending Gate = iota
	// GateNotify: a wait for a person tells the run's webhooks when it
	// begins, passes half its timeout and times out. Asked only by a run
	// that has webhooks.
	GateNotify
	// GateApprovalDeadline: a call whose tool's approval has a timeout of
	// its own waits that long (not human_timeout), is counted and shown
	// overdue past half of it, and is then decided as approval.then says.
	// Asked only for such a call.
	GateApprovalDeadline
	// GatePeople: a call of a tool whose approval names approvers: N > 1
	// runs once N distinct people approved it, each approval recorded
	// naming its person. Asked only for such a call's approval.
	GatePeople
	// GateHumanPeople: a graph's human node or the ladder's human rung
	// whose approval block names who may reply or a timeout waits as it
	// says (reply_ask.go). Asked only for such a wait.
	GateHumanPeople
	// GateInterruptedApprovals: the approvals a call had short of its
	// approvers: N when an edit interrupted its wait are recorded, each an
	// approval node naming its person, instead of dropped. Asked only when
	// such approvals were dropped.
	GateInterruptedApprovals
)

// MetricApprovals counts approval decisions; tag decision (approve,
// reject, modify, replace, timeout, timeout_approve: the approval's
// deadline approved).
const MetricApprovals = "unstuck_approvals"

// MetricApprovalsPastHalf counts calls that waited past half their
// approval's own timeout (approval: {timeout}); tag tool.
// MetricApprovalsEscalated counts approvals whose deadline passed and
// asked the next group (then: escalate); tag tool.
const (
	MetricApprovalsPastHalf  = "unstuck_approvals_past_half"
	MetricApprovalsEscalated = "unstuck_approvals_escalated"
)
