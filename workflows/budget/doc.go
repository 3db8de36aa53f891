// Package budget is a run's budget (policies.budget): what the run spent,
// what people raised its limits by, and the budget rung that stops a
// request or call that would cross a limit until a person raises the
// budget or stops the run.
//
// A Budget owns that state: the run's Spending (carried in the run's JSON,
// changed only here) and the rung's Hold (its wait and its stop, kept
// unexported). What it needs of the run (its spec, its trace, its waits for
// a person, its gates) it asks through Host, which the run implements; the
// rules themselves are pure functions in policies/budget.go.
//
// Before the money is spent, never after: a model request is counted at
// its reply's bound (BeforeRequest), and its prompt is counted by the model
// activity before it is sent (OverPrompt).
package budget
