package walk

// Walk is where a graph run is, how often each node was visited, and the
// edges a rollback excluded ("from->to").
type Walk struct {
	GraphAt string `json:"graph_at,omitempty"`
	// ResumeFrom: after a rollback, the walk picks the next edge from this
	// node (with its recorded outcome) instead of visiting it again, so a
	// write tool there does not run twice.
	ResumeFrom    *Point         `json:"resume_from,omitempty"`
	Visits        map[string]int `json:"visits,omitempty"`
	ExcludedEdges []string       `json:"excluded_edges,omitempty"`
}

// Point is a graph node already visited, with its outcome.
type Point struct {
	Node  string `json:"node"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Again: the node is visited again instead (visitResult.again).
	Again bool `json:"again,omitempty"`
}
