// Package waiting is a run's waits for people as the run carries them
// from one generation into the next: when each wait began, the watch that
// has a run that waits only for people continue as new when Temporal
// suggests it, what the run carries then and how the next generation takes
// it up, and the await that an edit can interrupt.
//
// A run waiting for a person keeps every signal it receives in its
// history, ignored ones included; waiting for the next step to continue
// as new lets a flood of signals reach the server's history limit, where
// the run is terminated. So a run that waits only for people continues
// as new when Temporal suggests it (policies.ContinueWhileWaiting), and
// the next generation waits for the same things: the same call nodes for
// approval (same call ids, same deadline), a person agent's same human
// node, with the decisions and the reply already accepted.
//
// The switch works like an edit's interruption: no call of the step
// starts, calls already running are waited for, the waiting calls are
// held (their nodes stay awaiting_approval, the calls waiting on them
// pending), and the next generation resumes the step's calls: settled
// ones are kept, held ones walk the pipeline again under their own node.
//
// Waits owns when each wait began (Starts, kept by the runner for its
// generation) and what the run carries (Carried, in the run's JSON). What
// it needs of the run it asks through Host; the run's waits for a
// person's decision and reply, which it carries and puts back, through
// People; whether the switch is under way is the run's life's (package
// life). A step's waits stay the run's type (Step): this package reads
// where people wait and hands the step back to the run for the rest.
package waiting
