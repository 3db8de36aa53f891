package edit

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
	"github.com/unstuck-dev/unstuck/workflows/walk"
)

// Edits is a run's edits and forks: what this generation remembers of
// them, the run's parts an edit changes, and the run it asks. It is a view
// made for each use: the state lives where its pointers lead (the run's
// fields, the runner's Memory), so a copy of the runner never leaves an
// Edits behind.
type Edits struct {
	mem   *Memory
	tr    *trace.Trace
	life  *life.Life
	task  *string
	input *json.RawMessage
	state *refs.State
	at    Counters
	host  Host
}

// Parts are what New makes the edits of.
type Parts struct {
	Memory *Memory
	Trace  *trace.Trace
	Life   *life.Life
	// Task and Input are the run's task and input: an edit of the task
	// node changes them.
	Task  *string
	Input *json.RawMessage
	// State is the run's State, which an edit rebuilds from the calls
	// that stay.
	State *refs.State
	At    Counters
	Host  Host
}

// New is the edits of a run, over its parts as they are now.
func New(p Parts) *Edits {
	return &Edits{mem: p.Memory, tr: p.Trace, life: p.Life, task: p.Task, input: p.Input, state: p.State, at: p.At, host: p.Host}
}

// Counters are what a checkpoint keeps of the run and an edit puts back:
// the loop escape, the graph's walk, the step counter, the escalations
// and the output's failures. Other parts own them; an edit restores them
// whole, as they were when the edited node began.
type Counters struct {
	Escape             *ladder.State
	Walk               *walk.Walk
	Step               *int
	Escalations        *[]ladder.Escalation
	EscalationsDropped *int
	DroppedRungs       *map[string]int
	OutputFailures     *int
	LastError          *string
}

// Memory is what a generation remembers of its edits (not carried: an
// accepted edit is applied before the run continues as new): the edit
// accepted, and the calls waiting for approval whose arguments a person
// edited. Its zero value is ready.
type Memory struct {
	accepted *accepted
	// argsEdited are the calls waiting for approval whose arguments a
	// person edited, with who did and why.
	argsEdited map[string]signals.Audit
}

// accepted is the edit accepted in this generation: what it asks, and
// the update's answer once the run's life says it was answered.
type accepted struct {
	req signals.EditRequest
	// wait: an update's handler waits for the answer (a signal: nobody).
	wait   bool
	result signals.EditResult
	err    error
}

// must carries out a transition of the run's life; one the life refuses
// is a fault of the run's code, and fails the workflow task (as the
// runner's own transitions do).
func must(err error) {
	if err != nil {
		panic(err)
	}
}
