// Command testreport tells where the time of `make test` goes: it reads
// the `go test -json` output of each layer (and the start and end of the
// layers that are not Go tests, such as lint) and prints each layer's wall
// time, the slowest tests and how many tests ran. It fails when fewer
// tests ran than the floor it is given, so a dropped test cannot pass
// unnoticed.
//
// The test layers: docs/testing.md.
package main
