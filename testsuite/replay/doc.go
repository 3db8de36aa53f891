// Package replay holds the replay layer: every history recorded in
// testsuite/histories/<release> of a supported release (replay.Supported)
// must replay against this tree's workflow code. It
// needs no server, so `make check` runs it in the inner loop.
//
// The test layers: docs/testing.md.
package replay
