package flakygraph

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
)

// FailRate is how often each tool's call fails: B 60%, C 10% (the seed's).
var FailRate = map[string]float64{"b": 0.6, "c": 0.1}

// Fails is the story of a flaky tool: its n-th call in the run of seed
// fails with probability p, drawn from seed, tool and n.
func Fails(seed, tool string, n int, p float64) bool {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", seed, tool, n)
	return rand.New(rand.NewPCG(h.Sum64(), 7)).Float64() < p
}

// Tools is the scenario's HTTP tools (a test double): /a, /b, /c and /d
// answer {"b": "done", "call": n}, or HTTP 503 when the draw says so. It
// counts each run's calls of each tool (by the Unstuck-Workflow-Id header).
type Tools struct {
	mu    sync.Mutex
	calls map[string]map[string]int // workflow id -> tool -> calls
}

// NewTools is the scenario's tools, with no call counted yet.
func NewTools() *Tools { return &Tools{calls: map[string]map[string]int{}} }

// ServeHTTP answers one call.
func (t *Tools) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var args struct {
		Seed json.Number `json:"seed"`
	}
	_ = json.NewDecoder(r.Body).Decode(&args)
	tool := strings.TrimPrefix(r.URL.Path, "/")
	wf := r.Header.Get("Unstuck-Workflow-Id")
	t.mu.Lock()
	if t.calls[wf] == nil {
		t.calls[wf] = map[string]int{}
	}
	t.calls[wf][tool]++
	n := t.calls[wf][tool]
	t.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if p := FailRate[tool]; p > 0 && Fails(args.Seed.String(), tool, n, p) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": tool + " is having a bad day"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"b": "done", "call": n})
}

// Calls is how many calls of tool ("a", "b", "c", "d") the run of
// workflowID made.
func (t *Tools) Calls(workflowID, tool string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[workflowID][tool]
}
