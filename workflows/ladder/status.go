package ladder

// BreakerStates are the breakers of the tools called so far, by tool, for
// the status query.
func (s *State) BreakerStates() map[string]string {
	out := map[string]string{}
	for name, b := range s.Breakers { //workflowcheck:ignore building a map: order does not matter
		out[name] = b.State
	}
	return out
}
