package person

// Waits is a run's waits for a person: their state and the run they wait
// in. It is a view made for each use: the state lives where its pointer
// leads (the runner's State), so a copy of the runner never leaves Waits
// behind.
type Waits struct {
	host  Host
	state *State
}

// New is the waits of a run: its host and its state.
func New(host Host, state *State) *Waits {
	return &Waits{host: host, state: state}
}

// State is what waits for a person in one generation, and what people
// answered that the waiting code has not taken yet. Its zero value waits
// for nothing.
type State struct {
	approvals approvals
	reply     replyWait
	// agent: the run is with an agent of kind human, waiting for it.
	agent bool
}

// Waiting says whether a call waits for approval or a node for a reply.
func (p *Waits) Waiting() bool {
	return p.state.approvals.waiting() || p.state.reply.waiting()
}
