package signals

import "encoding/json"

// The kinds of Check.
const (
	CheckResultSchema = "result_schema" // the result against the tool's result_schema
	CheckVerify       = "verify"        // the tool's verify expression over args and result
	CheckReadBack     = "read_back"     // a read-back call, its result against verify.expect
)

// Check is the verdict on a call's result: which check, what it held the
// result to, and for one that failed, why and the values it read.
type Check struct {
	Kind      string `json:"kind"`
	Condition string `json:"condition,omitempty"`
	Passed    bool   `json:"passed"`
	Reason    string `json:"reason,omitempty"`
	Seen      []Seen `json:"seen,omitempty"`
	// ReadBack is the trace node of the read-back call.
	ReadBack string `json:"read_back,omitempty"`
	// Unknown: the read-back could not read (its tool down, timed out,
	// its breaker open), so whether the call took effect is not known;
	// it did not fail its check.
	Unknown bool `json:"unknown,omitempty"`
}

// Seen is a value a check read: where (result.status, args.date) and
// what, as JSON.
type Seen struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// The words of a Check's verdict, as people read them.
const (
	VerdictVerified   = "verified"
	VerdictUnverified = "unverified"
	VerdictUnknown    = "outcome_unknown" // the read-back could not read
)

// Verdict is the check's word: verified, unverified, or outcome_unknown.
func (c Check) Verdict() string {
	switch {
	case c.Passed:
		return VerdictVerified
	case c.Unknown:
		return VerdictUnknown
	}
	return VerdictUnverified
}
