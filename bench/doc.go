// Package bench holds the end-to-end benchmarks of unstuck, run by
// `make bench` (not by `make test`) on the real Temporal dev server with the
// real worker and the scripted model server. Each benchmark measures unstuck
// and its baseline side by side in one run and reports ratios; the figures
// are kept in RESULTS.md with the command that produced them.
//
// How to run them and what they measure: docs/testing.md.
package bench
