// Package testsuite holds unstuck's tests that need more than one package:
// replay tests over the recorded histories in histories/, and integration
// tests against the real Temporal dev server (the pinned CLI in bin/), the
// real worker, the scripted OpenAI-compatible model server (a test double
// for the model, internal/testdouble/scriptedmodel) and real HTTP tool
// servers on loopback.
//
// Run them with `make test`, which installs bin/temporal first. Set
// UNSTUCK_TEMPORAL_BIN to use another Temporal CLI binary.
package testsuite
