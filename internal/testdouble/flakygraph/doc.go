// Package flakygraph is the seed's graph on flaky tools, a TEST DOUBLE
// scenario shared by the real-server loop-escape test and `make bench`.
// It is the graph A -> B -> C -> A, C -> D -> E of seeds/000, written as
// in the seed or with B's failures routed back to A (`B -> C when: ok`,
// `B -> A when: !ok`), over loopback HTTP tools where B fails transiently
// (HTTP 503) 60% of the time and C 10%, with the default breaker,
// `loop: {window: 64, repeats: 3}`, `max_steps: 100` and the ladder
// [retry, explore, stop].
//
// Each tool's n-th call in a run fails or not by a draw seeded by the
// run's seed, the tool and n (Fails), so a seed tells the same story in
// the test environment and on the real server, whatever the other runs
// do at the same time.
//
// Its figures: docs/loops.md and bench/RESULTS.md.
package flakygraph
