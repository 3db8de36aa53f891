// Package load is the engine of `unstuck load`: it measures how a Temporal
// server and its workers fare under many agent runs. It starts the runs at
// a bounded concurrency, follows them to their end and reports throughput,
// step and run latency percentiles, failures by kind and the server's own
// figures (task queue pollers and backlog, workflow task failures counted
// in the runs' histories).
//
// Run drives the load against whatever workers poll the task queue: a
// deployment's, or the ones StartLocal starts in this process. StartLocal
// is the self-contained setup: the scripted model server (a TEST DOUBLE,
// internal/testdouble/scriptedmodel), a loopback HTTP tool server that
// records each call's Idempotency-Key, and an unstuck worker on its own
// task queue. The CLI and the benchmarks share both, so a figure printed
// by `unstuck load` and one measured by a benchmark mean the same thing.
//
// Users: docs/load.md.
package load
