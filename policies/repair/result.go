package repair

import (
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/unstuck-dev/unstuck/config"
)

// The strategy names an Applied repair carries; the trace shows them.
const (
	StrategyCoerceType     = "coerce_type"
	StrategyReformatDate   = "reformat_date"
	StrategyCorrectEnum    = "correct_enum"
	StrategyClamp          = "clamp"
	StrategyDefault        = "default"
	StrategyTrim           = "trim"
	StrategyRemoveProperty = "remove_property"
	// StrategyRenameProperty moves an unknown property to the declared
	// one it misspells ("departureDate" for "departure_date"), rather
	// than removing it and losing its value.
	StrategyRenameProperty = "rename_property"
	// StrategyReadNumber reads a number written as people write it: a
	// currency ("$25.99", "25 USD"), thousands separators ("1,250.50",
	// "1 250,50"), a percentage where the schema gives its scale.
	StrategyReadNumber = "read_number"
	// StrategySplitList splits a list written as text ("a, b; c", one
	// item a line) into the array the schema wants.
	StrategySplitList = "split_list"
	// StrategyUnwrapArguments takes the arguments out of one extra
	// object ({"arguments": {...}}); Path is the wrapper, Before its name.
	StrategyUnwrapArguments = "unwrap_arguments"
	// StrategyDecodeString reads arguments sent as a JSON string holding
	// a JSON object (RepairText); Before and After are texts.
	StrategyDecodeString = "decode_json_string"
	// StrategyLenientJSON rewrites single quotes, comments, trailing
	// commas and Python literals as JSON (RepairText).
	StrategyLenientJSON = "lenient_json"
	// StrategyRelativeDate resolves "tomorrow", "in 3 days" or "next
	// Friday" (where that is certain) against Options.Today.
	StrategyRelativeDate = "relative_date"
)

// Options tunes a repair. The zero value is ready to use.
type Options struct {
	// MaxRounds is how many validate-and-repair rounds run at most
	// (default DefaultMaxRounds, capped at MaxRoundsLimit).
	MaxRounds int
	// Today dates a date written without a year ("Oct 26"): the first
	// such day on or after Today; and a relative date ("tomorrow"): its
	// day is Today's in UTC. Zero leaves those dates unrepaired. The
	// workflow passes workflow.Now, never the wall clock.
	Today time.Time
	// Compiled is the schema already compiled by config.CompileSchema
	// from the same document, to save compiling it on every call. Nil
	// compiles it.
	Compiled *jsonschema.Schema
	// Rules is the rule set (zero: the newest). See RuleSet.
	Rules RuleSet

	// nested marks the repair a rule runs to check that its change would
	// lead to valid arguments (the items of a split list): it does not
	// split lists itself, so that the check never recurses.
	nested bool
	// Disabled names strategies not to use: the workflow turns off, for
	// a run recorded before a rule existed, what that run did not do.
	Disabled []string
}

// DefaultMaxRounds matches the contract's default repair.max_attempts.
const DefaultMaxRounds = 3

// MaxRoundsLimit bounds MaxRounds whatever the config says: each round
// validates the whole argument set again.
const MaxRoundsLimit = 16

// rounds is the number of rounds opts allows.
func (o Options) rounds() int {
	switch {
	case o.MaxRounds <= 0:
		return DefaultMaxRounds
	case o.MaxRounds > MaxRoundsLimit:
		return MaxRoundsLimit
	default:
		return o.MaxRounds
	}
}

// Applied is one repair made: where (a JSON Pointer into the arguments),
// by which strategy, the value before and after, and why. For
// remove_property After is nil; for rename_property Before and After are
// the old and new property names and Path the old property.
type Applied struct {
	Strategy string
	Path     string
	Before   any
	After    any
	Reason   string
}

// Result is the outcome of a repair. Args is always a fresh copy (the
// input is never changed): the repaired arguments when Valid, otherwise
// the last arguments reached; nil only when the input could not be
// copied (not JSON, or deeper than MaxDepth, or far beyond MaxBytes).
// Repairs lists what was changed, in order; Unrepaired what is still
// wrong; Reason says in one line why the repair stopped.
type Result struct {
	Args       map[string]any
	Valid      bool
	Repairs    []Applied
	Unrepaired []config.Violation
	Reason     string
}
