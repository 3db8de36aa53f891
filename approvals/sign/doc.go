// Package sign is what a signed approval proves and how it is checked:
// an Ed25519 signature over a canonical message that binds the run (its
// continue-as-new chain and workflow id), the call and the tool it waits
// for, the decision and its arguments, who approves and with which key,
// and when it was signed. `unstuck approve` and the console sign; the
// workflow checks, in the approve update's validator and again in the
// signal's handler. Pure: no clock, no I/O (the workflow calls it).
package sign
