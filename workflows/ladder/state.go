package ladder

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// State holds the loop detector, the breakers and the ladder, so they
// survive crashes and continue-as-new (workflows.Run embeds it as
// LoopEscape: its fields are the run's JSON fields). Its fields are
// exported for that JSON; only this package changes them.
type State struct {
	Detector *policies.LoopDetector       `json:"detector,omitempty"`
	Breakers map[string]*policies.Breaker `json:"breakers,omitempty"`
	Ladder   policies.Ladder              `json:"ladder"`
	Loops    []signals.Loop               `json:"loops"`
	// LoopsDropped counts the oldest loops no longer listed (record.go).
	LoopsDropped int      `json:"loops_dropped,omitempty"`
	LastCycle    []string `json:"last_cycle,omitempty"`
	// LastCycleNodes are the graph nodes of the last loop's cycle, sorted:
	// in a graph, progress is a success outside them (graph-progress).
	// Free-form, after a time-window loop, the window's tool (progress is
	// a success of another); nil after any other free-form loop.
	LastCycleNodes []string `json:"last_cycle_nodes,omitempty"`
	// Blocked are exact calls (tool and canonical arguments) the explore
	// rung forbade: they fail with a message instead of running.
	Blocked []string `json:"blocked,omitempty"`
	// Events are the recent loop events (where, node id), oldest first,
	// bounded by the loop window: rollback finds where a loop began.
	Events []policies.EventRef `json:"events,omitempty"`
	// VisitWindow is the time window's recent visits, for an agent with
	// policies.loop.time_window.
	VisitWindow *policies.VisitWindow `json:"visit_window,omitempty"`
	// Struggle: in a graph, the nodes of the loops met since the run last
	// made real progress, and whether explore sent the walk away from
	// them (version explore-region, struggle.go).
	Struggle policies.Struggle `json:"struggle,omitzero"`
}

// Escalation is a rung the run climbed, as its result and status list it.
type Escalation struct {
	At     string `json:"at"`
	Action string `json:"action"`
	Why    string `json:"why"`
}

// Run is what the loop escape reads of the run it belongs to.
type Run interface {
	// Node is trace node nodeID, false when the run has none.
	Node(nodeID string) (Node, bool)
	// StateJSON is the run's State as JSON: coming back to one with
	// nothing new is a state loop.
	StateJSON() []byte
	// Visits are a graph's visit counts by node.
	Visits() map[string]int
}

// Node is a trace node as the loop escape sees it.
type Node struct {
	ID string
	// Call: the node is a call of a tool.
	Call bool
	// Tool is the tool the model asked for, whichever tool served it.
	Tool   string
	Args   json.RawMessage
	Failed bool
}

// Version asks a version gate (workflows.versionOf).
type Version func(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version

// Gates are the ids of the version gates the loop escape asks, each asked
// where the rules it guards decide otherwise than those before it.
type Gates struct {
	GraphProgress, ExploreCycle, ExploreRegion, StateHash, TimeWindow,
	RungsByClass, BoundedLists, TurnLoops string
}

// Parts wire an Escape to a run: the state it owns (State, and the run's
// fields of other parts it keeps), the run's spec, what it reads of the
// run and how it asks the gates.
type Parts struct {
	State *State
	// Escalations, EscalationsDropped and DroppedRungs are the rungs
	// climbed (the run's Progress lists them).
	Escalations        *[]Escalation
	EscalationsDropped *int
	DroppedRungs       *map[string]int
	// ExcludedEdges are the graph edges a rollback excluded (the run's
	// GraphWalk reads them to choose its next edge).
	ExcludedEdges *[]string
	Spec          *config.Resolved
	// Walk is the graph the run walks (nil: a free-form run, whose
	// events have no place): a loop's scope is then the graph's nodes,
	// and the edges out of them are its ways out.
	Walk    *config.Graph
	Run     Run
	Version Version
	Gates   Gates
}

// Escape is a run's loop escape, over the run's state.
type Escape struct {
	s        *State
	esc      *[]Escalation
	dropped  *int
	rungs    *map[string]int
	excluded *[]string
	spec     *config.Resolved
	walk     *config.Graph
	run      Run
	version  Version
	gates    Gates
}

// New is the loop escape of the run p wires.
func New(p Parts) *Escape {
	return &Escape{s: p.State, esc: p.Escalations, dropped: p.EscalationsDropped, rungs: p.DroppedRungs,
		excluded: p.ExcludedEdges, spec: p.Spec, walk: p.Walk, run: p.Run, version: p.Version, gates: p.Gates}
}

// on says whether the run follows gate id (asked now).
func (e *Escape) on(ctx workflow.Context, id string) bool { return e.version(ctx, id, 1) >= 1 }

// detector is the run's loop detector, created on first use.
func (e *Escape) detector() *policies.LoopDetector {
	if e.s.Detector == nil {
		p := e.spec.Agent.Policies.Loop
		e.s.Detector = policies.NewLoopDetector(p.Window, p.Repeats)
	}
	return e.s.Detector
}

// Breaker is a tool's circuit breaker, created on first use.
func (e *Escape) Breaker(tool string) *policies.Breaker {
	if e.s.Breakers == nil {
		e.s.Breakers = map[string]*policies.Breaker{}
	}
	b, ok := e.s.Breakers[tool]
	if !ok {
		p := e.spec.Agent.Policies.Breaker
		b = policies.NewBreaker(p.Failures, p.Cooldown.D())
		e.s.Breakers[tool] = b
	}
	return b
}

// ladder is the run's escalation ladder, created on first use from the
// agent's rungs.
func (e *Escape) ladder() *policies.Ladder {
	if e.s.Ladder.Rungs == nil {
		e.s.Ladder = *policies.NewLadder(e.spec.Agent.Policies.Escalation)
	}
	return &e.s.Ladder
}

// climbed reports whether the ladder is above its bottom rung, so that a
// reset would change it.
func climbed(l *policies.Ladder) bool { return l.Next > 0 || l.Repaired }

// Volatile is the tool's own volatile fields, left out of its calls'
// signatures (and blocklist keys) besides policies.DefaultVolatile.
func Volatile(spec *config.Resolved, tool string) []string {
	if spec == nil {
		return nil
	}
	t, _ := spec.Tool(tool)
	return t.Volatile
}
