package life

import (
	"errors"
	"fmt"
	"testing"
)

// move is a transition of the run's life, by name.
type move struct {
	name string
	do   func(*Life) error
}

var (
	start            = move{"start", (*Life).Start}
	beginSwitch      = move{"begin switch", (*Life).BeginSwitch}
	endSwitch        = move{"end switch", (*Life).EndSwitch}
	interruptEdit    = move{"interrupt (edit)", func(l *Life) error { return l.Interrupt(Edit) }}
	interruptHandoff = move{"interrupt (handoff)", func(l *Life) error { return l.Interrupt(Handoff) }}
	answer           = move{"answer", (*Life).Answer}
	handOver         = move{"hand over", func(l *Life) error { return l.HandOver("b") }}
	handOverRefused  = move{"hand over refused", (*Life).HandOverRefused}
	closeRun         = move{"close", (*Life).Close}
	endContinued     = move{"end (continued)", func(l *Life) error { return l.End(true) }}
	end              = move{"end", func(l *Life) error { return l.End(false) }}
)

// moves is the order of each row's want.
var moves = []move{start, beginSwitch, endSwitch, interruptEdit, interruptHandoff, answer, handOver, handOverRefused, closeRun, endContinued, end}

// x marks a transition the life refuses.
const x = "refused"

// Every transition from every state a run reaches: the state it leads to,
// or refused.
func TestEveryTransitionFromEveryState(t *testing.T) {
	const (
		R = "running"
		S = "switching"
		I = "interrupting"
		H = "handing over"
		C = "closing"
		E = "ended"
	)
	rows := []struct {
		name  string
		reach []move
		want  []string // by moves
	}{
		{"starting", nil,
			[]string{R, x, x, x, x, x, x, x, x, x, x}},
		{"running", []move{start},
			[]string{x, S, R, I, I, x, H, x, C, C, E}},
		{"switching", []move{start, beginSwitch},
			[]string{x, x, R, I, I, x, H, x, C, C, E}},
		{"interrupted by an edit", []move{start, interruptEdit},
			[]string{x, x, I, x, x, R, H, x, C, C, E}},
		{"interrupted during a switch", []move{start, beginSwitch, interruptEdit},
			[]string{x, x, I, x, x, S, H, x, C, C, E}},
		{"handing over", []move{start, handOver},
			[]string{x, x, H, H, H, x, H, R, C, C, E}},
		{"handing over for a person", []move{start, interruptHandoff, handOver},
			[]string{x, x, H, x, x, H, H, I, C, C, E}},
		{"edit carried out", []move{start, interruptEdit, answer},
			[]string{x, S, R, x, x, x, H, x, C, C, E}},
		{"closing", []move{start, closeRun},
			[]string{x, x, C, x, x, x, x, x, C, C, E}},
		{"closing with an edit not answered", []move{start, interruptEdit, closeRun},
			[]string{x, x, C, x, x, C, x, x, C, C, E}},
		{"ended", []move{start, end},
			[]string{x, x, x, x, x, x, x, x, x, x, x}},
	}
	for _, row := range rows {
		for i, m := range moves {
			t.Run(row.name+"/"+m.name, func(t *testing.T) {
				var l Life
				for _, r := range row.reach {
					if err := r.do(&l); err != nil {
						t.Fatalf("reaching %s: %s: %v", row.name, r.name, err)
					}
				}
				before := l
				err := m.do(&l)
				got := l.State().String()
				if err != nil {
					got = x
					var imp *ImpossibleError
					if !errors.As(err, &imp) || imp.State != before.State() {
						t.Fatalf("refusal %v is not an ImpossibleError naming state %s", err, before.State())
					}
					if l != before {
						t.Fatalf("a refused %s changed the life: %+v, was %+v", m.name, l, before)
					}
				}
				if got != row.want[i] {
					t.Fatalf("%s from %s: got %s, want %s (err %v)", m.name, row.name, got, row.want[i], err)
				}
			})
		}
	}
}

// What the run asks of its life, in the states where the answers differ.
func TestWhatTheRunAsks(t *testing.T) {
	type answers struct {
		interrupting       bool
		pending, accepted  Cause
		answered, switches bool
		to                 string
		closing, ended     bool
	}
	rows := []struct {
		name  string
		reach []move
		want  answers
	}{
		{"running", []move{start}, answers{}},
		{"an edit waits", []move{start, interruptEdit}, answers{interrupting: true, pending: Edit, accepted: Edit}},
		{"an edit during a switch", []move{start, beginSwitch, interruptEdit}, answers{interrupting: true, pending: Edit, accepted: Edit, switches: true}},
		{"a person's handoff carried out", []move{start, interruptHandoff, handOver}, answers{interrupting: true, pending: Handoff, accepted: Handoff, to: "b"}},
		{"the handoff answered", []move{start, interruptHandoff, handOver, answer}, answers{accepted: Handoff, answered: true, to: "b"}},
		{"closing after a handoff", []move{start, handOver, closeRun}, answers{to: "b", closing: true}},
		{"closing while switching", []move{start, beginSwitch, closeRun}, answers{switches: true, closing: true}},
		{"closing, an edit not answered", []move{start, interruptEdit, closeRun}, answers{interrupting: true, pending: Edit, accepted: Edit, closing: true}},
		{"ended", []move{start, end}, answers{closing: true, ended: true}},
	}
	for _, row := range rows {
		var l Life
		for _, m := range row.reach {
			if err := m.do(&l); err != nil {
				t.Fatalf("%s: %s: %v", row.name, m.name, err)
			}
		}
		got := answers{l.Interrupting(), l.Pending(), l.Accepted(), l.Answered(), l.Switching(), l.HandingOver(), l.Closing(), l.Ended()}
		if got != row.want {
			t.Errorf("%s: got %+v, want %+v", row.name, got, row.want)
		}
	}
	var zero Life
	if !zero.Starting() || zero.State() != Starting {
		t.Errorf("the zero life is %s, want starting", zero.State())
	}
}

func TestARefusalNamesTheTransitionAndTheState(t *testing.T) {
	var l Life
	_ = l.Start()
	_ = l.Close()
	err := l.Interrupt(Edit)
	want := "run life: cannot take an edit while closing: only a running run is interrupted"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestWhichNodesRunAgainForAnEdit(t *testing.T) {
	for _, tc := range []struct {
		why  NotRun
		want bool
	}{{Interrupted, true}, {HandedOver, true}, {NeverRan, true}, {CutIn, false}, {"", false}} {
		if got := tc.why.Again(); got != tc.want {
			t.Errorf("%s: got %v, want %v", fmt.Sprintf("%q", tc.why), got, tc.want)
		}
	}
}

// A call the pending interruption stops says whose it was.
func TestWhatStopsACall(t *testing.T) {
	for _, tc := range []struct {
		reach []move
		want  NotRun
	}{
		{[]move{start, interruptEdit}, Interrupted},
		{[]move{start, interruptHandoff}, HandedOver},
		{[]move{start, interruptHandoff, answer}, Interrupted}, // as the run did: only a pending handoff says so
	} {
		var l Life
		for _, m := range tc.reach {
			if err := m.do(&l); err != nil {
				t.Fatal(err)
			}
		}
		if got := l.Stops(); got != tc.want {
			t.Errorf("%s: got %s, want %s", l.State(), got, tc.want)
		}
	}
}
