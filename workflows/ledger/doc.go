// Package ledger is the effect ledger: which write already ran, with
// which arguments and what result, read from the run's trace. Every call
// that ran is in the trace with its tool, arguments and result; a write
// the model (or a graph) asks for again after an edit, a rollback or a
// message that cut its turn short is matched here to the call that made
// it, so the run answers it with that call's result instead of making it
// twice (ExecutedWrite), takes the Idempotency-Key of a try that may have
// acted (TriedWrite, KeyOf), or holds one whose outcome is not known
// (UnverifiedWrite).
//
// It owns what the trace records of a call's effects: whether its tool
// activity started and with which key (Ran), whether it ran to a result
// (Executed), which call a reused answer came from (Reused) and whether
// an invalidated write was answered for since (AnsweredFor). Those are
// fields of trace.Node, carried in the run's JSON; no code of workflows/
// but this package writes them (workflows/ledger_owner_test.go), and a
// fork's trace starts them again (trace.Trace.Forked).
//
// What it reads of the run (the trace's nodes, the ledger-latest gate, a
// conversation's turn cut short) it asks through Host, which the run
// implements; which stage asks it, and what is done with its answer (run,
// reuse, ask a person), stays with the call pipeline (its ledger stage,
// workflows/call_stages.go).
package ledger
