// Package deskchain is a chain of agents handing a run along, a TEST DOUBLE
// scenario shared by the real-server handoff test and `make bench`. Desks
// desk00 -> desk01 -> ..., each of which makes four calls with 1 KiB of
// arguments, then hands the run to the next desk; the last one answers.
// Script is the desks' model (the scripted model's Script), deciding from
// the conversation alone, as scripts must.
//
// Its figures: bench/RESULTS.md; the handoffs it exercises:
// docs/handoffs.md.
package deskchain
