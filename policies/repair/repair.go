package repair

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/unstuck-dev/unstuck/config"
)

// Repair validates a tool call's arguments against the tool's JSON Schema
// (as decoded from YAML or JSON) and mends what it can without a model:
// each round repairs every failure it has a strategy for, then validates
// again, for at most opts.MaxRounds rounds. It stops when the arguments
// are valid, when no repair applies to what is left, or when a round
// would bring back arguments already tried. args is never changed.
func Repair(schema map[string]any, args map[string]any, opts Options) Result {
	s, res, ok := prepare(schema, args, opts)
	if !ok {
		return res
	}
	if inner, a, ok := s.unwrap(); ok {
		s.args, s.repairs = inner, []Applied{a}
		s.canon, _ = canonical(inner)
		s.seen.add(s.canon)
	}
	return s.run()
}

// session is one repair: the compiled schema, the schema document for
// looking up keywords, and the working copy of the arguments.
type session struct {
	compiled *jsonschema.Schema
	doc      schemaDoc
	opts     Options
	args     map[string]any
	canon    []byte // canonical JSON of args
	seen     seen
	repairs  []Applied
}

// prepare copies the arguments, checks their bounds and compiles the
// schema. When it answers false the Result is final.
func prepare(schema, args map[string]any, opts Options) (*session, Result, bool) {
	if sh := measure(args); sh.big || sh.deep {
		return nil, Result{Reason: sizeReason(sh, 0)}, false
	}
	v, canon, err := normalize(args)
	if err != nil {
		return nil, Result{Reason: "arguments are not JSON: " + strings.TrimPrefix(err.Error(), "json: ")}, false
	}
	obj, _ := v.(map[string]any)
	if obj == nil { // a nil map encodes as null: no arguments
		obj, canon = map[string]any{}, []byte("{}")
	}
	compiled := opts.Compiled
	if compiled == nil {
		if compiled, err = config.CompileSchema("tool parameters", schema); err != nil {
			return nil, Result{Args: obj, Reason: err.Error()}, false
		}
	}
	raw, _, err := normalize(schema)
	if err != nil {
		return nil, Result{Args: obj, Reason: "tool parameters: the schema is not JSON: " + err.Error()}, false
	}
	rawObj, _ := raw.(map[string]any)
	s := &session{compiled: compiled, doc: schemaDoc{root: rawObj}, opts: opts, args: obj, canon: canon, seen: seen{}}
	if len(canon) > MaxBytes {
		// Too large to repair, not too large to check.
		if _, viol := check(compiled, obj); len(viol) > 0 {
			return nil, s.result(false, viol, sizeReason(shape{}, len(canon))), false
		}
		return nil, s.result(true, nil, "arguments are valid"), false
	}
	s.seen.add(canon)
	return s, Result{}, true
}

// run is the validate-and-repair loop.
func (s *session) run() Result {
	rounds := s.opts.rounds()
	for round := 0; ; round++ {
		issues, viol := check(s.compiled, s.args)
		switch {
		case len(viol) == 0 && len(s.repairs) == 0:
			return s.result(true, nil, "arguments are valid")
		case len(viol) == 0:
			return s.result(true, nil, fmt.Sprintf("valid after %d repair(s) in %d round(s)", len(s.repairs), round))
		case round == rounds:
			return s.result(false, viol, fmt.Sprintf("still invalid after %d round(s) of repair: %s", rounds, summary(viol)))
		}
		applied := s.round(issues)
		if len(applied) == 0 {
			return s.result(false, viol, "no deterministic repair for: "+summary(viol))
		}
		if why := s.accept(); why != "" {
			return s.result(false, viol, why)
		}
		s.repairs = append(s.repairs, applied...)
	}
}

// accept keeps the round's arguments, or puts back the previous ones and
// says why: they are beyond the bounds, or already tried (a loop).
func (s *session) accept() string {
	canon, err := canonical(s.args)
	why := ""
	switch {
	case err != nil:
		why = "a repair made arguments that are not JSON: " + err.Error()
	case len(canon) > MaxBytes || measure(s.args).deep:
		why = "a repair would take the arguments beyond the size or depth a repair handles"
	case !s.seen.add(canon):
		why = "repair loop detected: this round's repairs bring back arguments already tried"
	}
	if why == "" {
		s.canon = canon
		return ""
	}
	prev, _ := decodeJSON(s.canon)
	s.args, _ = prev.(map[string]any)
	return why
}

// round applies, in priority order, the repair of each failure it has a
// strategy for, unless it touches a location another repair of the same
// round already touched (that failure waits for the next round, against
// the arguments as they will then be).
func (s *session) round(issues []issue) []Applied {
	f := s.fixer()
	t := newTouched()
	var out []Applied
	for _, is := range issues {
		edits := f.propose(is)
		if len(edits) == 0 || t.conflicts(edits) {
			continue
		}
		for _, e := range edits {
			ok := false
			if e.remove {
				ok = remove(s.args, e.at)
			} else {
				ok = set(s.args, e.at, e.value)
			}
			t.add(e.at)
			if ok && e.applied.Strategy != "" {
				out = append(out, e.applied)
			}
		}
	}
	return out
}

// result is the outcome with the arguments as they stand.
func (s *session) result(valid bool, viol []config.Violation, reason string) Result {
	return Result{Args: s.args, Valid: valid, Repairs: s.repairs, Unrepaired: viol, Reason: reason}
}

// summary is the first few violations, for a Reason.
func summary(viol []config.Violation) string {
	const shown = 3
	parts := make([]string, 0, shown+1)
	for i, v := range viol {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(viol)-shown))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}
