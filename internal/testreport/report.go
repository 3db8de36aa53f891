package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// event is the part of a `go test -json` event the report reads.
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// result is one test's outcome.
type result struct {
	Layer, Package, Test, Action string
	Elapsed                      time.Duration
}

// span is the wall time of one layer: its first test's start to its last
// test's end.
type span struct{ Start, End time.Time }

func (s span) add(start, end time.Time) span {
	if s.Start.IsZero() || start.Before(s.Start) {
		s.Start = start
	}
	if end.After(s.End) {
		s.End = end
	}
	return s
}

// report gathers the layers' tests and wall times.
type report struct {
	spans   map[string]span
	results []result
	absent  []absent
}

// absent is a layer's output that is not there: the layer did not run.
type absent struct{ Layer, Path string }

func newReport() *report { return &report{spans: map[string]span{}} }

// readJSON reads one `go test -json` stream; layer, when set, is the layer
// of all its tests, else each test's package tells (layerOf).
func (r *report) readJSON(in io.Reader, layer string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if !strings.HasPrefix(sc.Text(), "{") {
			continue // go test's own lines, such as a build failure's
		}
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if ev.Test == "" {
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			l := layer
			if l == "" {
				l = layerOf(ev.Package, ev.Test)
			}
			// A parallel test's elapsed time leaves out its wait for the
			// tests that run alone, which its run event does not.
			elapsed := time.Duration(ev.Elapsed * float64(time.Second))
			r.spans[l] = r.spans[l].add(ev.Time.Add(-elapsed), ev.Time)
			r.results = append(r.results, result{Layer: l, Package: ev.Package, Test: ev.Test, Action: ev.Action, Elapsed: elapsed})
		}
	}
	return sc.Err()
}

// addSpan adds the wall time of a layer that is not Go tests.
func (r *report) addSpan(layer string, start, end time.Time) {
	r.spans[layer] = r.spans[layer].add(start, end)
}

// counts are the tests of some layers by outcome.
type counts struct{ Passed, Failed, Skipped int }

func (c counts) total() int { return c.Passed + c.Failed + c.Skipped }

func (r *report) count(keep func(layer string) bool) counts {
	var c counts
	for _, res := range r.results {
		if !keep(res.Layer) {
			continue
		}
		switch res.Action {
		case "pass":
			c.Passed++
		case "fail":
			c.Failed++
		case "skip":
			c.Skipped++
		}
	}
	return c
}

// slowest answers the n slowest top-level tests, slowest first.
func (r *report) slowest(n int) []result {
	var top []result
	for _, res := range r.results {
		if !strings.Contains(res.Test, "/") {
			top = append(top, res)
		}
	}
	slices.SortStableFunc(top, func(a, b result) int { return int(b.Elapsed - a.Elapsed) })
	return top[:min(n, len(top))]
}

// write prints the report: the tests that ran, each layer's wall time and
// the slowest tests.
func (r *report) write(w io.Writer, slowest int) {
	all := r.count(func(string) bool { return true })
	fmt.Fprintf(w, "tests run: %d (%d passed, %d skipped, %d failed)\n", all.total(), all.Passed, all.Skipped, all.Failed)
	fmt.Fprintf(w, "\n%-12s %9s %7s %8s\n", "layer", "wall", "tests", "skipped")
	for _, l := range layerOrder {
		s, ok := r.spans[l]
		if !ok {
			if slices.ContainsFunc(r.absent, func(a absent) bool { return a.Layer == l }) {
				fmt.Fprintf(w, "%-12s %9s\n", l, "not run")
			}
			continue
		}
		c := r.count(func(layer string) bool { return layer == l })
		tests, skipped := "-", "-"
		if c.total() > 0 {
			tests, skipped = fmt.Sprint(c.total()), fmt.Sprint(c.Skipped)
		}
		fmt.Fprintf(w, "%-12s %8.1fs %7s %8s\n", l, s.End.Sub(s.Start).Seconds(), tests, skipped)
	}
	for _, a := range r.absent {
		if a.Layer == "" {
			fmt.Fprintf(w, "not run: no %s\n", a.Path)
		}
	}
	fmt.Fprintf(w, "\nthe %d slowest tests:\n", slowest)
	for _, res := range r.slowest(slowest) {
		fmt.Fprintf(w, "%8.1fs  %-11s  %s %s\n", res.Elapsed.Seconds(), res.Layer, strings.TrimPrefix(res.Package, modulePath), res.Test)
	}
}
