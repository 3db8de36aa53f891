// Package replay replays workflow histories against this tree's workflow
// code, registered with the interceptors the worker uses: `unstuck
// replay` on an operator's runs (Files, All, the BadInputError and the
// plain Explain of a failure), the replay tests (testsuite/replay) and
// the integration tests that record histories (History).
//
// The test layers: docs/testing.md. The command: docs/replay.md.
package replay
