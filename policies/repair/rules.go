package repair

// RuleSet names the rules a repair uses. A workflow pins the set its run
// started with (workflow.GetVersion), so that a recorded history replays
// with the repairs it was recorded with; every other caller leaves it
// zero, the newest rules.
//
// Every rule is certain or it does nothing: it makes a change only when
// the value has one reading, and otherwise leaves the failure for the
// focused model request. When each rule is certain is said where it is
// written (coerce.go, written.go, booleans.go, lists.go, dates.go,
// relative.go, whole.go, lenient.go, enum.go, clamp.go, default.go,
// trim.go, remove.go). The whole-argument rules and relative dates are
// not in a RuleSet: each is turned off by name (Options.Disabled) for a
// run recorded before it.
type RuleSet int

const (
	// RulesNewest is the newest rules (the zero value).
	RulesNewest RuleSet = iota
	// RulesFirst is the rules before the value repairs of issue 14:
	// numbers as people write them ("$25.99", "1,250.50", "15%") were not
	// read; booleans only from true/false/yes/no strings; a string given
	// for an array was wrapped whole into a one-item array even when it
	// held a list ("a, b" became ["a, b"]: a wrong repair) or shell words
	// ("-v -x"); an enum value within a small edit distance was taken
	// even when it was the allowed value with an affix ("biweekly" became
	// "weekly").
	RulesFirst
)
