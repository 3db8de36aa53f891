// Package testsuite holds unstuck's tests that need more than one package.
// They are replay tests over the recorded histories in histories/, and
// integration tests against the real Temporal dev server (the pinned CLI in
// bin/), the real worker, the scripted OpenAI-compatible model server (a
// test double for the model, internal/testdouble/scriptedmodel) and real
// HTTP tool servers on loopback; and the hostile-input layer
// (hostile_test.go, trust_test.go): forged carried state, corrupt and
// oversized messages, replies, arguments and outputs past Temporal's limits,
// redirecting and removed tools.
//
// Run them with `make test`, which installs bin/temporal first. Set
// UNSTUCK_TEMPORAL_BIN to use another Temporal CLI binary.
//
// The test layers: docs/testing.md.
package testsuite
