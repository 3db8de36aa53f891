package life

import "fmt"

// ImpossibleError is a transition the run's life refuses in its state:
// the run's code took a step its life does not allow.
type ImpossibleError struct {
	Transition string
	State      State
	Why        string
}

func (e *ImpossibleError) Error() string {
	return fmt.Sprintf("run life: cannot %s while %s: %s", e.Transition, e.State, e.Why)
}

func (l *Life) refuse(transition, why string) error {
	return &ImpossibleError{Transition: transition, State: l.State(), Why: why}
}

// Start: the run is built (Starting to Running).
func (l *Life) Start() error {
	if l.line != Starting {
		return l.refuse("start", "the run is built already")
	}
	l.line = Running
	return nil
}

// BeginSwitch begins continuing as new while the run waits: only a
// running run that nothing interrupts, hands over or switches already.
func (l *Life) BeginSwitch() error {
	switch {
	case l.line != Running:
		return l.refuse("begin a switch", "only a running run switches")
	case l.switching:
		return l.refuse("begin a switch", "a switch is under way already")
	case l.Interrupting():
		return l.refuse("begin a switch", "an "+l.cause.String()+" waits to be carried out")
	case l.to != "":
		return l.refuse("begin a switch", "the run is handed over to "+l.to)
	}
	l.switching = true
	return nil
}

// EndSwitch calls the switch off, if one is on: nothing was left waiting,
// or an edit, a handoff or a cancellation took the run instead.
func (l *Life) EndSwitch() error {
	if l.line == Starting || l.line == Ended {
		return l.refuse("end a switch", "the run has no waits")
	}
	l.switching = false
	return nil
}

// Interrupt accepts a person's edit or handoff, carried out at the run's
// next wait: one a generation, and none once the run closes.
func (l *Life) Interrupt(c Cause) error {
	what := "take an " + c.String()
	switch {
	case c != Edit && c != Handoff:
		return l.refuse("take an interruption", "only an edit or a handoff interrupts")
	case l.line != Running:
		return l.refuse(what, "only a running run is interrupted")
	case l.cause != NoCause:
		return l.refuse(what, "an "+l.cause.String()+" was taken in this generation already")
	}
	l.cause = c
	return nil
}

// Answer: the interruption was carried out, or answered as not carried
// out.
func (l *Life) Answer() error {
	switch {
	case l.cause == NoCause:
		return l.refuse("answer an interruption", "nothing interrupted the run")
	case l.answered:
		return l.refuse("answer an interruption", "the "+l.cause.String()+" was answered already")
	}
	l.answered = true
	return nil
}

// HandOver: a handoff is carried out, to whom (the next candidate, when
// one refused).
func (l *Life) HandOver(to string) error {
	switch {
	case l.line != Running:
		return l.refuse("hand over to "+to, "only a running run is handed over")
	case to == "":
		return l.refuse("hand over", "it names no one")
	}
	l.to = to
	return nil
}

// HandOverRefused: no agent took the run; it goes on with its agent.
func (l *Life) HandOverRefused() error {
	switch {
	case l.line != Running:
		return l.refuse("end a handoff", "the run is not running")
	case l.to == "":
		return l.refuse("end a handoff", "no handoff is under way")
	}
	l.to = ""
	return nil
}

// Close: the run continues as new. Closing again is nothing new.
func (l *Life) Close() error {
	switch l.line {
	case Running, Closing:
		l.line = Closing
		return nil
	}
	return l.refuse("close", "only a running run closes")
}

// End: the run's code returned; it continued as new (closing) or ends.
func (l *Life) End(continued bool) error {
	switch l.line {
	case Running, Closing:
		l.line = Closing
		if !continued {
			l.line = Ended
		}
		return nil
	}
	return l.refuse("end", "only a running or closing run ends")
}
