package eval

import "fmt"

// A case's plot: three groups (pass rate, loops, cost), each a bar for
// the baseline beside one for the candidate, drawn as inline SVG. Every
// case's bars share one scale per metric (the suite's largest value), so
// plots of different cases compare at a glance.

// Plot geometry, in SVG user units.
const (
	plotW      = 360
	plotH      = 150
	plotTop    = 18 // room for the value above a full bar
	plotBottom = 28 // room for the metric's name under the bars
	barW       = 40
	groupW     = plotW / 3
)

// plot is one case's SVG.
type plot struct {
	W, H   int
	Axis   float64 // y of the bars' foot
	Bars   []bar
	Labels []label
}

// bar is one rectangle: Side is "baseline" or "candidate", Metric the
// group it belongs to.
type bar struct {
	Side, Metric string
	X, Y, W, H   float64
	Value        string
}

// label is text under a group.
type label struct {
	X, Y float64
	Text string
}

// scale is the largest loops and cost of the suite, either side, that a
// full bar stands for (pass rate's is 1).
type scale struct{ loops, cost float64 }

func newScale(sc Scorecard) scale {
	var s scale
	for _, c := range sc.Cases {
		s.loops, s.cost = max(s.loops, c.Mean.Loops), max(s.cost, c.Mean.Cost)
		if then, ok := baseSide(c, sc.Suite.Baseline != ""); ok {
			s.loops, s.cost = max(s.loops, then.Figures.Loops), max(s.cost, then.Figures.Cost)
		}
	}
	return s
}

// plot draws now beside then (when hasThen).
func (s scale) plot(now, then side, hasThen bool) plot {
	p := plot{W: plotW, H: plotH, Axis: plotH - plotBottom}
	for i, m := range []struct {
		name string
		full float64
		val  func(side) float64
		text func(float64) string
	}{
		{"pass rate", 1, passRate, func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }},
		{"loops", s.loops, func(x side) float64 { return x.Figures.Loops }, num},
		{"cost", s.cost, func(x side) float64 { return x.Figures.Cost }, money},
	} {
		mid := float64(i*groupW + groupW/2)
		p.Labels = append(p.Labels, label{X: mid, Y: plotH - 8, Text: m.name})
		sides := []struct {
			name string
			x    side
			ok   bool
		}{{"baseline", then, hasThen}, {"candidate", now, true}}
		for j, sd := range sides {
			if !sd.ok {
				continue
			}
			v := m.val(sd.x)
			h := 0.0
			if m.full > 0 {
				h = v / m.full * (p.Axis - plotTop)
			}
			p.Bars = append(p.Bars, bar{Side: sd.name, Metric: m.name, X: mid - barW - 2 + float64(j)*(barW+4), Y: p.Axis - h, W: barW, H: h, Value: m.text(v)})
		}
	}
	return p
}

// passRate is the share of a side's runs that passed.
func passRate(s side) float64 {
	if s.Runs == 0 {
		return 0
	}
	return float64(s.Passed) / float64(s.Runs)
}
