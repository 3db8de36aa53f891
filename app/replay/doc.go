// Package replay replays a recorded workflow history against this tree's
// workflow code, registered as the worker registers it. The replay tests
// (testsuite/replay) and the integration tests that record histories use
// it.
//
// The test layers: docs/testing.md.
package replay
