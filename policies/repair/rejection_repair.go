package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// RepairRejection mends arguments a tool rejected at run time (after they
// passed the schema, or with problems the schema does not describe): it
// reads the message's hints (ParseRejection), applies the same strategies
// to the parameters they name, using what the message adds to the schema
// (an allowed-values list, a bound), then repairs and validates against
// the schema as Repair does. It is Valid only when every hint was acted
// on and the result fits the schema: resending arguments the tool already
// refused would only be refused again. Hints it cannot act on (a missing
// value with no default, a pattern) are in Unrepaired.
func RepairRejection(schema, args map[string]any, message string, opts Options) Result {
	s, res, ok := prepare(schema, args, opts)
	if !ok {
		return res
	}
	hints := ParseRejection(message)
	if len(hints) == 0 {
		_, viol := check(s.compiled, s.args)
		return s.result(false, viol, "the rejection names no parameter problem a repair understands: "+shortText(message, 200))
	}
	f := s.fixer()
	t := newTouched()
	var open []config.Violation
	var applied []Applied
	for _, h := range hints {
		edits, satisfied := f.hint(h)
		if satisfied {
			continue
		}
		if len(edits) == 0 || t.conflicts(edits) {
			open = append(open, f.hintViolation(h))
			continue
		}
		for _, e := range edits {
			if e.remove {
				remove(s.args, e.at)
			} else {
				set(s.args, e.at, e.value)
			}
			t.add(e.at)
			if e.applied.Strategy != "" {
				applied = append(applied, e.applied)
			}
		}
	}
	if len(applied) == 0 {
		_, viol := check(s.compiled, s.args)
		return s.result(false, append(viol, open...), "no deterministic repair for the rejection: "+shortText(message, 200))
	}
	if why := s.accept(); why != "" {
		_, viol := check(s.compiled, s.args)
		return s.result(false, append(viol, open...), why)
	}
	s.repairs = applied
	r := s.run()
	if len(open) > 0 {
		r.Valid = false
		r.Unrepaired = append(r.Unrepaired, open...)
		r.Reason = "the rejection names problems that need judgement: " + summary(open)
	}
	return r
}

// hint proposes the edits one hint calls for. satisfied means the
// arguments already keep what the hint says (a bound the value is within,
// as for the half of "between 1 and 9" not broken): nothing to do, and
// nothing left open.
func (f *fixer) hint(h Hint) (edits []edit, satisfied bool) {
	if h.Kind == HintEnum && h.Field == "" {
		h.Field = f.enumField(h.Values)
	}
	steps, exists, ok := locate(f.args, h.Field)
	if !ok {
		return nil, false
	}
	if h.Kind == HintMissing {
		if exists {
			return nil, false
		}
		return f.missing(steps), false
	}
	if !exists {
		return nil, false
	}
	v, _ := get(f.args, steps)
	ns := f.doc.at(steps)
	switch h.Kind {
	case HintDate:
		out, why, ok := reformatDate(v, dateFormat(ns, v, f), f.opts.Today, f.opts.Rules)
		return f.one(steps, StrategyReformatDate, v)(out, why, ok), false
	case HintMin, HintMax:
		return f.boundHint(h, steps, v, ns)
	case HintEnum:
		return f.enumHint(h, steps, v, ns)
	case HintType:
		return f.typeHint(h, steps, v, ns)
	}
	return nil, false // patterns need judgement
}

// boundHint clamps v to the bound a min or max hint names; a value already
// within it satisfies the hint.
func (f *fixer) boundHint(h Hint, steps []string, v any, ns nodes) (edits []edit, satisfied bool) {
	b, ok := hintBound(h)
	if !ok {
		return nil, false
	}
	if n, isNum := v.(json.Number); isNum {
		if r, ok := numberRat(n); ok && holds(r, b) {
			return nil, true
		}
	}
	out, why, ok := clamp(v, b, ns.integer() || wholeBound(ns, v, b))
	return f.one(steps, StrategyClamp, v)(out, why, ok), false
}

// enumHint corrects v to one of the values the hint lists (else the
// schema's enum); a value already listed satisfies the hint.
func (f *fixer) enumHint(h Hint, steps []string, v any, ns nodes) (edits []edit, satisfied bool) {
	allowed := stringsAny(h.Values)
	if len(allowed) == 0 {
		e, _ := ns.first("enum")
		allowed, _ = e.([]any)
	}
	if s, isStr := v.(string); isStr && contains(h.Values, s) {
		return nil, true
	}
	return f.one(steps, StrategyCorrectEnum, v)(correctEnum(v, allowed, f.opts.Rules)), false
}

// typeHint coerces v to the type the hint names (else the schema's types);
// a value already of a named type satisfies the hint.
func (f *fixer) typeHint(h Hint, steps []string, v any, ns nodes) (edits []edit, satisfied bool) {
	want := h.Values
	if len(want) == 0 || want[0] == "" {
		want = ns.types()
	}
	for _, w := range want {
		if jsonType(v, w) && len(h.Values) > 0 {
			return nil, true
		}
	}
	return f.coerce(steps, v, want), false
}

// missing fills a parameter the tool says is missing: from a property
// under a misspelt name the schema does not declare, or from the
// schema's default.
func (f *fixer) missing(steps []string) []edit {
	parentSteps := steps[:len(steps)-1]
	parent, _ := get(f.args, parentSteps)
	obj, ok := parent.(map[string]any)
	if !ok {
		return nil
	}
	name := steps[len(steps)-1]
	declared := f.doc.at(parentSteps).declared()
	var loose []string
	for k := range obj {
		if !contains(declared, k) {
			loose = append(loose, k)
		}
	}
	sort.Strings(loose)
	if i, _, ok := bestMatch(name, loose, false); ok {
		from := child(parentSteps, loose[i])
		return []edit{{at: from, remove: true}, {at: steps, value: obj[loose[i]], applied: Applied{
			Strategy: StrategyRenameProperty, Path: pointer(from), Before: loose[i], After: name, Reason: renameReason(loose[i], name)}}}
	}
	if d, why, ok := defaultFor(f.doc.at(steps)); ok {
		return []edit{{at: steps, value: d, applied: Applied{
			Strategy: StrategyDefault, Path: pointer(steps), After: deepCopy(d), Reason: why}}}
	}
	return nil
}

// enumField is the top-level argument an allowed-values list without a
// parameter name is about: the only string argument that is not in the
// list and that the list has a close match for.
func (f *fixer) enumField(values []string) string {
	keys := make([]string, 0, len(f.args))
	for k := range f.args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	allowed := stringsAny(values)
	found := ""
	for _, k := range keys {
		s, ok := f.args[k].(string)
		if !ok || contains(values, s) {
			continue
		}
		if _, _, ok := correctEnum(s, allowed, f.opts.Rules); ok {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// dateFormat is the form a date the tool refused should take: the
// schema's format, else a date-time when the value has a time, else a
// date.
func dateFormat(ns nodes, v any, f *fixer) string {
	if fm, ok := ns.first("format"); ok && (fm == "date" || fm == "date-time") {
		return fm.(string)
	}
	if s, ok := v.(string); ok {
		if w, err := parseWhen(s, f.opts.Today); err == nil && w.hasTime {
			return "date-time"
		}
	}
	return "date"
}

// hintBound reads the bound of a min or max hint.
func hintBound(h Hint) (bound, bool) {
	r, ok := parseNumber(h.Bound)
	if !ok {
		return bound{}, false
	}
	op := map[[2]bool]boundOp{{true, false}: atLeast, {true, true}: above, {false, false}: atMost, {false, true}: below}[[2]bool{h.Kind == HintMin, h.Exclusive}]
	return bound{op: op, value: r}, true
}

// wholeBound treats a bound as one on integers when the schema says no
// numeric type and both the value and the bound are whole.
func wholeBound(ns nodes, v any, b bound) bool {
	if contains(ns.types(), "number") {
		return false
	}
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	r, ok := numberRat(n)
	return ok && r.IsInt() && b.value.IsInt()
}

// hintViolation reports a hint left unrepaired as a violation, with the
// schema library's kind where one fits (kind.Required for a missing
// parameter, so the workflow infers it as it does a schema's), else
// Rejected.
func (f *fixer) hintViolation(h Hint) config.Violation {
	steps, exists, ok := locate(f.args, h.Field)
	at := "/"
	if ok {
		at = pointer(steps)
	}
	var v any
	if exists {
		v, _ = get(f.args, steps)
	}
	var k jsonschema.ErrorKind = &Rejected{Hint: h}
	switch {
	case h.Kind == HintMissing && ok:
		at = pointer(steps[:len(steps)-1])
		k = &kind.Required{Missing: []string{steps[len(steps)-1]}}
	case h.Kind == HintEnum && exists && len(h.Values) > 0:
		k = &kind.Enum{Got: v, Want: stringsAny(h.Values)}
	case h.Kind == HintDate && exists:
		k = &kind.Format{Got: v, Want: "date", Err: errors.New("the tool rejected it")}
	case h.Kind == HintPattern && exists && len(h.Values) > 0:
		if s, ok := v.(string); ok {
			k = &kind.Pattern{Got: s, Want: h.Values[0]}
		}
	}
	return config.Violation{At: at, Kind: k, Message: k.LocalizedString(english)}
}

// Rejected is the kind of an unrepaired violation a tool's rejection
// reported and the schema does not describe.
type Rejected struct {
	Hint Hint
}

// KeywordPath implements jsonschema.ErrorKind: no schema keyword failed.
func (*Rejected) KeywordPath() []string { return nil }

// LocalizedString implements jsonschema.ErrorKind.
func (r *Rejected) LocalizedString(*message.Printer) string {
	return describeHint(r.Hint)
}

// describeHint says what a hint says, in words.
func describeHint(h Hint) string {
	switch h.Kind {
	case HintMissing:
		return "the tool says the parameter is missing"
	case HintDate:
		return "the tool rejected the date format"
	case HintMin, HintMax:
		b, _ := hintBound(h)
		return fmt.Sprintf("the tool says the value must be %s %s", b.op, h.Bound)
	case HintEnum:
		return "the tool says the value must be one of " + strings.Join(h.Values, ", ")
	case HintType:
		if len(h.Values) > 0 && h.Values[0] != "" {
			return "the tool says the value must be of type " + h.Values[0]
		}
		return "the tool rejected the value's type"
	case HintPattern:
		if len(h.Values) > 0 {
			return "the tool says the value must match " + strconv.Quote(h.Values[0])
		}
		return "the tool says the value does not match its pattern"
	}
	return "the tool rejected the value"
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// shortText cuts a message for a Reason.
func shortText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return policies.CutText(s, n) + "…"
}

func itoa(i int) string { return strconv.Itoa(i) }
