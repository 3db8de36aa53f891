// Package feed turns a run's durable state into a feed of events a
// follower reads as they happen (`unstuck follow`): a trace node added or
// settled, the run's phase, a call waiting for approval, the run's end.
//
// The feed is read from the run itself, by its trace query (only what
// changed since the last read: TracePage.ChangedAfter) and its status
// query, polled; nothing is pushed and nothing is stored for followers.
// Every event has a stable id made of when the node last changed (its at,
// the workflow's clock), the node and what the event says, so a follower
// that comes back with the last id it saw is given every later event once.
package feed
