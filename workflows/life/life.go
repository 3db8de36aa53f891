package life

import "fmt"

// State is where the run is in its life.
type State int

const (
	// Starting: the run is being built; there is no run to ask yet.
	Starting State = iota
	// Running: the run takes its steps.
	Running
	// Switching: the run continues as new while it waits for people;
	// its waits end held, carried into the next generation.
	Switching
	// Interrupting: an edit or a person's handoff waits to be carried
	// out at the run's next wait.
	Interrupting
	// HandingOver: a handoff is carried out; the run is going away to
	// the agent that takes it.
	HandingOver
	// Closing: the run continues as new (or ends): its handlers finish,
	// and it takes no edit or handoff.
	Closing
	// Ended: the run itself ends (it does not continue as new): no
	// message can be taken.
	Ended
)

var stateNames = [...]string{"starting", "running", "switching", "interrupting", "handing over", "closing", "ended"}

func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// Cause is what interrupts the run: a person's edit or handoff.
type Cause int

const (
	NoCause Cause = iota
	Edit
	Handoff
)

func (c Cause) String() string {
	switch c {
	case Edit:
		return "edit"
	case Handoff:
		return "handoff"
	}
	return "none"
}

// Life is the run's life in one generation. The zero value is Starting.
type Life struct {
	// line is the main line: Starting, Running, Closing or Ended.
	line State
	// cause is the interruption accepted in this generation (one at
	// most: a second is refused), answered once carried out or
	// answered as not carried out.
	cause    Cause
	answered bool
	// switching: the switch is on (it stays on under an interruption
	// until the held waits are released).
	switching bool
	// to names whom a handoff under way hands the run to ("" when
	// none is); kept as the run closes after the handoff.
	to string
}

// State is the state that tells most of where the run is.
func (l *Life) State() State {
	switch {
	case l.line != Running:
		return l.line
	case l.to != "":
		return HandingOver
	case l.Interrupting():
		return Interrupting
	case l.switching:
		return Switching
	}
	return Running
}

// Starting: the run is not built yet.
func (l *Life) Starting() bool { return l.line == Starting }

// Interrupting: an edit or a person's handoff waits to be carried out.
func (l *Life) Interrupting() bool { return l.cause != NoCause && !l.answered }

// Pending is what interrupts the run and is not answered yet (NoCause
// when nothing does).
func (l *Life) Pending() Cause {
	if l.answered {
		return NoCause
	}
	return l.cause
}

// Accepted is the edit or handoff accepted in this generation, answered
// or not (NoCause when none was).
func (l *Life) Accepted() Cause { return l.cause }

// Answered: the interruption accepted was carried out, or answered as
// not carried out.
func (l *Life) Answered() bool { return l.cause != NoCause && l.answered }

// Switching: the run continues as new while it waits, and its waits end
// held.
func (l *Life) Switching() bool { return l.switching }

// HandingOver names whom a handoff under way hands the run to ("" when
// none is).
func (l *Life) HandingOver() string { return l.to }

// Closing: the run continues as new or ends.
func (l *Life) Closing() bool { return l.line == Closing || l.line == Ended }

// Ended: the run itself ends.
func (l *Life) Ended() bool { return l.line == Ended }
