// Package testsuite holds unstuck's tests that need more than one package.
// They are integration tests against the real Temporal dev server (the
// pinned CLI, bin/temporal), the real worker, the scripted
// OpenAI-compatible model server (a test double for the model,
// internal/testdouble/scriptedmodel) and real HTTP tool servers on
// loopback; and the hostile-input layer
// (hostile_test.go, trust_test.go): forged carried state, corrupt and
// oversized messages, replies, arguments and outputs past Temporal's limits,
// redirecting and removed tools.
//
// The histories the tests record are in histories/<release>/; package replay
// replays them. The tests run in parallel on one dev server, each on task
// queues and ids of its own; one that must run alone says why.
//
// Run them with `make test-server` (or `make test`), which builds the
// Temporal CLI first. Set UNSTUCK_TEMPORAL_BIN to use another binary.
//
// The test layers: docs/testing.md.
package testsuite
