package mend

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
)

// Mender repairs a run's calls: its attempts so far and the run it asks
// what it needs. It is a view made for each use: the state lives where
// its pointer leads (the runner's Attempts).
type Mender struct {
	host Host
	at   *Attempts
}

// New is the repairs of a run: its host and this generation's attempts.
func New(host Host, at *Attempts) *Mender {
	return &Mender{host: host, at: at}
}

// Attempts are the repair attempts made per call node and the canonical
// arguments each call was issued with. A step's repairs end within the
// step, so they need not outlive the generation. The zero value is ready.
type Attempts struct {
	made  map[string]int
	tried map[string]map[string]bool
}

// add counts one more repair attempt of call node.
func (a *Attempts) add(node string) {
	if a.made == nil {
		a.made = map[string]int{}
	}
	a.made[node]++
}

// Left is how many repair attempts call node has left.
func (m *Mender) Left(node string) int {
	return m.host.Spec().Agent.Policies.Repair.MaxAttempts - m.at.made[node]
}

// Tried records arguments a call was issued with, and reports whether
// they had been tried before: a repair never re-issues arguments the tool
// already refused (A -> B -> A).
func (m *Mender) Tried(node string, args json.RawMessage) bool {
	canon, err := policies.CanonicalJSON(args)
	if err != nil {
		return false
	}
	if m.at.tried == nil {
		m.at.tried = map[string]map[string]bool{}
	}
	if m.at.tried[node] == nil {
		m.at.tried[node] = map[string]bool{}
	}
	seen := m.at.tried[node][string(canon)]
	m.at.tried[node][string(canon)] = true
	return seen
}
