package policies

import "time"

// ModelFailure is how a model request failed once its retries were
// spent, as the choice of a fallback model reads it.
type ModelFailure struct {
	// Fatal: the provider refused the request (a bad key, an unknown
	// model, a bad request), as opposed to being unavailable.
	Fatal bool
	// ContextExceeded: the prompt is over the model's window; compaction
	// answers that (policies.context), not another model.
	ContextExceeded bool
	// Unavailable: the model did not answer (unavailable on every
	// attempt, refused by the worker's breaker, or timed out), as
	// opposed to answering with a refusal.
	Unavailable bool
}

// ModelDown says whether a request that failed so, with no fallback left
// to turn to, finds the model down: the run waits the outage out
// (contract: waiting_outage) instead of stopping. A refusal (fatal) or a
// prompt over the window would be met again after any wait.
func ModelDown(f ModelFailure) bool {
	return f.Unavailable && !f.Fatal && !f.ContextExceeded
}

// NextModel is the place in an agent's list of models (0 its model, i
// its i-th fallback) that a request failed at place at goes to, -1 for
// none. providers are each place's provider (its endpoint's host): a
// refusal such as a bad key would be met again at the same provider, so
// it skips to another one.
func NextModel(at int, providers []string, f ModelFailure) int {
	if f.ContextExceeded || at < 0 || at >= len(providers) {
		return -1
	}
	for i := at + 1; i < len(providers); i++ {
		if f.Fatal && providers[i] == providers[at] {
			continue
		}
		return i
	}
	return -1
}

// ModelToAsk is where a run's next request starts: the fallback it turned
// to, until cooldown has passed since (then the agent's own model is
// tried again).
func ModelToAsk(at int, since, now time.Time, cooldown time.Duration) int {
	if at > 0 && now.Sub(since) >= cooldown {
		return 0
	}
	return at
}
