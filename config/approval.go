package config

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"
)

// Approval modes of a tool, as written: approval: never or approval: always.
const (
	approvalNever  = "never"
	approvalAlways = "always"
)

// The two written modes, for a Tool's Approval.
var (
	ApprovalNever  = Approval{Mode: approvalNever}
	ApprovalAlways = Approval{Mode: approvalAlways}
)

// Approval is when a call of a tool waits for a person: never, always
// (Mode), or only when the condition When holds over the call's args and
// the run's state and input (approval: {when: "args.amount > 1000"}).
// It is carried in every run's resolved spec, so in recorded histories: a
// mode is written in JSON as the string it always was.
type Approval struct {
	Mode string // never, always; "" in the {when} form
	When string // the {when} form's condition
	Deadline
}

// Always: every call waits for a person.
func (a Approval) Always() bool { return a.Mode == approvalAlways }

// Conditional: a call waits only when When holds (policies.ApprovalAsks).
func (a Approval) Conditional() bool { return a.When != "" }

// MayAsk: a call of the tool may wait for a person.
func (a Approval) MayAsk() bool { return a.Always() || a.Conditional() }

// IsZero: nothing written (json omitzero; defaults fill in never).
func (a Approval) IsZero() bool { return a == Approval{} }

// plain: only a mode, written as the string runs always carried.
func (a Approval) plain() bool { return !a.Conditional() && a.Deadline == Deadline{} }

// approvalKeys are the keys of approval's mapping form; approvalLater
// those the contract names that this release does not read yet.
var (
	approvalKeys  = []string{"when", "timeout", "then"}
	approvalLater = []string{"by", "approvers"}
)

// UnmarshalYAML reads a mode (a string) or a mapping {when, timeout,
// then}. A problem is
// a *yaml.TypeError, so the decoder goes on and every problem of the file
// is reported together.
func (a *Approval) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*a = Approval{Mode: n.Value}
		return nil
	case yaml.MappingNode:
		*a = Approval{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch {
			case slices.Contains(approvalLater, k.Value):
				return typeError(k, "approval.%s is not supported yet: this release reads approval: never, always or {when: EXPR, timeout: DURATION, then: reject|approve}", k.Value)
			case !slices.Contains(approvalKeys, k.Value):
				return typeError(k, "field %s not found in approval (the block form has when, timeout and then)", k.Value)
			case k.Value == "timeout" || k.Value == "then":
				if err := a.Deadline.read(k.Value, v); err != nil {
					return err
				}
				continue
			case v.Kind != yaml.ScalarNode:
				return typeError(v, "invalid approval.when: want an expression (a string)")
			}
			a.When = v.Value
		}
		switch {
		case a.When == "" && a.Deadline != Deadline{}:
			a.Mode = approvalAlways // a deadline alone: every call asks
		case a.When == "":
			return typeError(n, "approval.when is empty: write a condition over args, state and input, or approval: always")
		}
		return nil
	}
	return typeError(n, "invalid approval: want never, always or a block {when: EXPR}")
}

// MarshalYAML writes the approval back as it is read.
func (a Approval) MarshalYAML() (any, error) {
	if a.plain() {
		return a.Mode, nil
	}
	m := map[string]any{}
	if a.Conditional() {
		m["when"] = a.When
	}
	a.Deadline.write(m)
	return m, nil
}

// MarshalJSON writes a mode as a JSON string ("always"), as runs carried
// it before the {when} form, and the mapping form as an object (with its
// mode when it has no when: {timeout} alone asks always).
func (a Approval) MarshalJSON() ([]byte, error) {
	if a.plain() {
		return json.Marshal(a.Mode)
	}
	w := approvalJSON{When: a.When, Timeout: a.Timeout, Then: a.Then}
	if !a.Conditional() {
		w.Mode = a.Mode
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads both forms MarshalJSON writes.
func (a *Approval) UnmarshalJSON(b []byte) error {
	var mode string
	if err := json.Unmarshal(b, &mode); err == nil {
		*a = Approval{Mode: mode}
		return nil
	}
	var w approvalJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("approval: want a mode (a string) or {\"when\": ...}: %w", err)
	}
	*a = Approval{Mode: w.Mode, When: w.When, Deadline: Deadline{Timeout: w.Timeout, Then: w.Then}}
	return nil
}

// approvalJSON is the object form. Its keys past when are written only
// when set, so a {when} alone keeps the JSON it always had.
type approvalJSON struct {
	Mode    string   `json:"mode,omitempty"`
	When    string   `json:"when,omitempty"`
	Timeout Duration `json:"timeout,omitempty"`
	Then    string   `json:"then,omitempty"`
}

// ApprovalEnv is what an approval's when sees: the call's arguments, as
// resolved, and the run's state and input.
type ApprovalEnv struct {
	Args  map[string]any `expr:"args"`
	State map[string]any `expr:"state"`
	Input map[string]any `expr:"input"`
	// Meter counts the evaluation's cost (policies.RunCondition).
	Meter ExprMeter `expr:"unstuck·meter"`
}

// WithMeter answers e with m as its meter.
func (e ApprovalEnv) WithMeter(m ExprMeter) any { e.Meter = m; return e }

// CompileApprovalWhen compiles an approval's when, type-checked against
// ApprovalEnv and required to be a bool, under the rules of an edge
// condition (CompileWhen): no now(), no map-order builtins, dates in UTC,
// a cost bound.
func CompileApprovalWhen(when string) (*vm.Program, error) {
	return compileBounded(when, ApprovalEnv{})
}
