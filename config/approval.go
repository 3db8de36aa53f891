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
// the run's state and input (approval: {when: "args.amount > 1000"}), and
// who may answer (People: by and approvers; nil: anyone).
// It is carried in every run's resolved spec, so in recorded histories: a
// mode is written in JSON as the string it always was.
type Approval struct {
	Mode string // never, always; "" in the {when} form
	When string // the {when} form's condition
	// People: the {by, approvers} of the block form (a pointer, so an
	// Approval stays comparable).
	People *Approvers
	// Deadline: the {timeout, then} of the block form (approval_deadline.go).
	Deadline
}

// Approvers are who may answer a tool's approvals: members of the groups
// By (people:), in escalation order, Count of them distinct (0: one).
type Approvers struct {
	By    []string
	Count int
}

// Named: the approval names who may answer (by:), so each answer must be
// signed by a member (docs/approvals-and-edits.md).
func (a Approval) Named() bool { return a.People != nil && len(a.People.By) > 0 }

// Groups are the groups named by by:, in escalation order (nil: none).
func (a Approval) Groups() []string {
	if a.People == nil {
		return nil
	}
	return a.People.By
}

// Needed is how many distinct people must approve a call (approvers:,
// default 1).
func (a Approval) Needed() int {
	if a.People == nil || a.People.Count < 1 {
		return 1
	}
	return a.People.Count
}

// Levels is how many groups are asked in turn, the next one each time
// the deadline passes: by:'s groups for then: escalate, else one.
func (a Approval) Levels() int {
	if a.Deadline.Decides() == ThenEscalate && a.Named() {
		return len(a.People.By)
	}
	return 1
}

// Always: every call waits for a person.
func (a Approval) Always() bool { return a.Mode == approvalAlways }

// Conditional: a call waits only when When holds (policies.ApprovalAsks).
func (a Approval) Conditional() bool { return a.When != "" }

// MayAsk: a call of the tool may wait for a person.
func (a Approval) MayAsk() bool { return a.Always() || a.Conditional() }

// IsZero: nothing written (json omitzero; defaults fill in never).
func (a Approval) IsZero() bool { return a == Approval{} }

// approvalKeys are the keys of approval's mapping form.
var approvalKeys = []string{"when", "by", "approvers", "timeout", "then"}

// UnmarshalYAML reads a mode (a string) or a mapping {when, by,
// approvers, timeout, then}; a mapping without when asks for every call
// (always). A
// problem is a *yaml.TypeError, so the decoder goes on and every problem
// of the file is reported together.
func (a *Approval) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*a = Approval{Mode: n.Value}
		return nil
	case yaml.MappingNode:
		return a.readBlock(n)
	}
	return typeError(n, "invalid approval: want never, always or a block {when, by, approvers, timeout, then}")
}

func (a *Approval) readBlock(n *yaml.Node) error {
	*a = Approval{}
	whenSet, who := false, Approvers{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !slices.Contains(approvalKeys, k.Value):
			return typeError(k, "field %s not found in approval (the block form has when, by, approvers, timeout and then)", k.Value)
		case k.Value == "timeout" || k.Value == "then":
			if err := a.Deadline.read(k.Value, v); err != nil {
				return err
			}
		case k.Value == "when":
			if v.Kind != yaml.ScalarNode {
				return typeError(v, "invalid approval.when: want an expression (a string)")
			}
			a.When, whenSet = v.Value, true
		case k.Value == "by":
			if err := v.Decode(&who.By); err != nil || len(who.By) == 0 {
				return typeError(v, "invalid approval.by: want a list of groups of people.groups, e.g. [finance, ops]")
			}
		case k.Value == "approvers":
			if err := v.Decode(&who.Count); err != nil || who.Count < 1 {
				return typeError(v, "invalid approval.approvers %q: want a whole number of distinct people, 1 or more", v.Value)
			}
		}
	}
	switch {
	case who.Count > 0 && len(who.By) == 0:
		return typeError(n, "approval.approvers needs approval.by: the groups whose distinct members count")
	case whenSet && a.When == "":
		return typeError(n, "approval.when is empty: write a condition over args, state and input, or leave it out to ask for every call")
	case !whenSet && len(who.By) == 0 && a.Deadline == Deadline{}:
		return typeError(n, "approval.when is empty: write a condition over args, state and input, or approval: always")
	}
	if !whenSet {
		a.Mode = approvalAlways
	}
	if len(who.By) > 0 {
		a.People = &who
	}
	return nil
}

// MarshalYAML writes the approval back as it is read.
func (a Approval) MarshalYAML() (any, error) {
	if !a.block() {
		return a.Mode, nil
	}
	m := map[string]any{}
	if a.When != "" {
		m["when"] = a.When
	}
	if a.Named() {
		m["by"] = a.People.By
		if a.People.Count > 0 {
			m["approvers"] = a.People.Count
		}
	}
	a.Deadline.write(m)
	return m, nil
}

// block: the approval is written as a mapping.
func (a Approval) block() bool { return a.Conditional() || a.Named() || a.Deadline != Deadline{} }

// MarshalJSON writes a mode as a JSON string ("always"), as runs carried
// it before the {when} form, and the block form as an object: {"when"}
// as it always was, by and approvers only when named (an object without
// when asks for every call).
func (a Approval) MarshalJSON() ([]byte, error) {
	if !a.block() {
		return json.Marshal(a.Mode)
	}
	w := approvalJSON{When: a.When, Timeout: a.Timeout, Then: a.Then}
	if !a.Conditional() && !a.Named() {
		w.Mode = a.Mode // {timeout} alone asks always, said so
	}
	if a.Named() {
		w.By, w.Approvers = a.People.By, a.People.Count
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
		return fmt.Errorf("approval: want a mode (a string) or {\"when\", \"by\", \"approvers\"}: %w", err)
	}
	*a = Approval{Mode: w.Mode, When: w.When, Deadline: Deadline{Timeout: w.Timeout, Then: w.Then}}
	if len(w.By) > 0 {
		a.People = &Approvers{By: w.By, Count: w.Approvers}
		if w.When == "" {
			a.Mode = approvalAlways
		}
	}
	return nil
}

// approvalJSON is the object form. Its keys past when are written only
// when set, so a {when} alone keeps the JSON it always had.
type approvalJSON struct {
	Mode      string   `json:"mode,omitempty"`
	When      string   `json:"when,omitempty"`
	By        []string `json:"by,omitempty"`
	Approvers int      `json:"approvers,omitempty"`
	Timeout   Duration `json:"timeout,omitempty"`
	Then      string   `json:"then,omitempty"`
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
