package eval

import (
	"encoding/json"
	"math"

	"github.com/unstuck-dev/unstuck/signals"
)

// A run's time from a loop to progress. A loop is an escalation node for
// a loop; its first event is the first call after the last progress
// before it (the stretch of calls that went nowhere), and the figure is
// the time from that call to the first progress after the escalation.
// Times are the nodes' `at`: when each settled.

// loopsToProgress is, for each loop of nodes (in trace order), the seconds
// from its first event to the progress after it; stuck counts the loops
// no progress followed.
func loopsToProgress(nodes []signals.Node) (seconds []float64, stuck int) {
	marks := progressMarks(nodes)
	afterProgress := 0 // the first node after the last progress
	for i, n := range nodes {
		if marks[i] {
			afterProgress = i + 1
			continue
		}
		if _, loop := escalationOf(n); !loop {
			continue
		}
		first := firstCall(nodes[afterProgress:i], n)
		next := nextMark(marks, i+1)
		if next < 0 {
			stuck++
			continue
		}
		seconds = append(seconds, max(0, nodes[next].At.Sub(first.At).Seconds()))
	}
	return seconds, stuck
}

// progressMarks marks the nodes that are progress: a call that completed
// with a tool and arguments no call completed with before, the final
// output (the final_output call, an output node), or a handoff that
// completed (the handoff call, a handoff node). Nodes that did not
// complete, invalidated ones included, are never progress.
func progressMarks(nodes []signals.Node) []bool {
	marks := make([]bool, len(nodes))
	done := map[string]bool{}
	for i, n := range nodes {
		if n.Status != signals.StatusCompleted {
			continue
		}
		switch {
		case n.Kind == signals.KindOutput, n.Kind == signals.KindHandoff:
			marks[i] = true
		case n.Kind == signals.KindCall && (n.Tool == signals.FinalOutputTool || n.Tool == signals.HandoffTool):
			marks[i] = true
		case n.Kind == signals.KindCall:
			key := callKey(n)
			marks[i] = !done[key]
			done[key] = true
		}
	}
	return marks
}

// callKey is a call's tool and canonical arguments; arguments that are
// not JSON are taken as written.
func callKey(n signals.Node) string {
	if k, err := Key(n.Tool, n.Args); err == nil {
		return k
	}
	return n.Tool + " " + string(n.Args)
}

// firstCall is the first call of stretch, else the escalation itself (a
// loop of model requests that called nothing, or one a rollback took
// back). Invalidated calls are left out: their `at` is when they were
// invalidated.
func firstCall(stretch []signals.Node, escalation signals.Node) signals.Node {
	for _, n := range stretch {
		if n.Kind == signals.KindCall && n.Status != signals.StatusInvalidated {
			return n
		}
	}
	return escalation
}

// nextMark is the index of the first mark at or after from, -1 if none.
func nextMark(marks []bool, from int) int {
	for i := from; i < len(marks); i++ {
		if marks[i] {
			return i
		}
	}
	return -1
}

// escalationOf reads an escalation node that is not invalidated: the rung
// it took, and whether it was for a loop (its args hold one).
func escalationOf(n signals.Node) (rung string, loop bool) {
	if n.Kind != signals.KindEscalation || n.Status == signals.StatusInvalidated {
		return "", false
	}
	var args struct {
		Rung string          `json:"rung"`
		Loop json.RawMessage `json:"loop"`
	}
	_ = json.Unmarshal(n.Args, &args)
	return args.Rung, len(args.Loop) > 0 && string(args.Loop) != "null"
}

// meanSeconds is the mean of seconds to the millisecond (a case file
// stays readable), nil when there are none.
func meanSeconds(seconds []float64) *float64 {
	if len(seconds) == 0 {
		return nil
	}
	sum := 0.0
	for _, s := range seconds {
		sum += s
	}
	mean := math.Round(sum/float64(len(seconds))*1000) / 1000
	return &mean
}

// meanLoopToProgress is the mean of the runs' LoopToProgress, over the
// runs that have one.
func meanLoopToProgress(runs []Run) *float64 {
	var seconds []float64
	for _, r := range runs {
		if s := r.Outcome.LoopToProgress; s != nil {
			seconds = append(seconds, *s)
		}
	}
	return meanSeconds(seconds)
}
