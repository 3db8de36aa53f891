package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// A tool's limits (max_concurrent, rate) bound how hard the workers call
// it. A tool with either runs on its own activity task queue
// (ToolTaskQueue), served by a worker of its own in each worker process:
// max_concurrent is that worker's slot count (per process), rate the
// queue's rate limit (enforced by the server for every worker of it).

// Limited says whether the tool has max_concurrent or rate, so its calls
// go to its own task queue.
func (t Tool) Limited() bool { return t.MaxConcurrent > 0 || t.Rate != "" }

// ToolTaskQueue is the activity task queue of a limited tool of runs on
// taskQueue. The workflow sends the tool's calls there; the worker serves
// it with the tool's limits.
func ToolTaskQueue(taskQueue, tool string) string { return taskQueue + "/tool/" + tool }

// rateForm is a rate as written: a count (decimals allowed) per s, m or h.
var rateForm = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)/([smh])$`)

const rateWant = "want a count per second, minute or hour, such as 50/s, 100/m, 1000/h or 0.5/s"

// ParseRate reads a rate ("50/s", "100/m", "0.5/s", "1000/h") as calls
// per second, Temporal's unit.
func ParseRate(s string) (float64, error) {
	m := rateForm.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("invalid rate %q: %s", s, rateWant)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) {
		return 0, fmt.Errorf("invalid rate %q: the count must be above 0", s)
	}
	per := map[string]float64{"s": 1, "m": 60, "h": 3600}[m[2]]
	return n / per, nil
}

// toolLimits checks a tool's max_concurrent and rate. An explicit 0 is
// refused rather than read as "no bound": leave the field out for that.
func (c *checker) toolLimits(p path, t *Tool) {
	mp := p.key("max_concurrent")
	if t.MaxConcurrent < 0 || (t.MaxConcurrent == 0 && written(c.doc, mp)) {
		c.add(mp, "must be at least 1, got %d (leave it out for no bound)", t.MaxConcurrent)
	}
	if t.Rate != "" || written(c.doc, p.key("rate")) {
		if _, err := ParseRate(t.Rate); err != nil {
			c.add(p.key("rate"), "%v", err)
		}
	}
}
