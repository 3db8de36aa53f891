package signals

// HandoffResult is the handoff update's answer: the handoff node, the
// agent that took the run (empty when none did), the candidates refused
// with why, and the run's handoff path after it.
type HandoffResult struct {
	NodeID      string           `json:"node_id"`
	To          string           `json:"to,omitempty"`
	Refused     []HandoffRefusal `json:"refused,omitempty"`
	HandoffPath []string         `json:"handoff_path"`
}

// HandoffRefusal is an agent a handoff passed over, and why.
type HandoffRefusal struct {
	Agent string `json:"agent"`
	Why   string `json:"why"`
}
