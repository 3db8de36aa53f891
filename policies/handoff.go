package policies

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// HandoffReasons are the reasons the reserved handoff tool takes
// (docs/contract.md "Model protocol").
var HandoffReasons = []string{"knowledge_gap", "out_of_scope", "tool_failure", "user_escalation", "complexity_exceeded", "other"}

// HandoffCandidate is an agent of the registry as the choice of a handoff
// target sees it: its config, and its live load and record, read from
// visibility by an activity (so the choice replays).
type HandoffCandidate struct {
	Name         string
	Description  string
	Capabilities []string
	Tier         int
	Human        bool // kind: human
	// MaxConcurrent is the agent's load limit (0: none); Running its runs
	// now.
	MaxConcurrent int
	Running       int
	// SuccessRate is completed runs against all that ended, over the
	// window read; negative when unknown.
	SuccessRate float64
}

// HandoffAsk is what a handoff asks for.
type HandoffAsk struct {
	From string // the agent handing over
	// Allowed is the source's `handoffs`: agent names, "human" (any agent
	// of kind human) or "*" (any agent).
	Allowed []string
	// Path is every agent the run has been with, in order.
	Path []string
	// To is the target asked for, if any: it is tried first.
	To                               string
	Reason, Summary, SuggestedAction string
}

// HandoffRefusal is a candidate left out, and why.
type HandoffRefusal struct {
	Agent string `json:"agent"`
	Why   string `json:"why"`
}

// HandoffChoice is the candidates to try in order (best first; a refusal
// by the target moves on to the next) and those left out with the reason.
type HandoffChoice struct {
	Ranked  []string
	Refused []HandoffRefusal
}

// ChooseHandoff ranks the registry for a handoff. Left out: the source
// itself, agents already in the handoff path (no bouncing), agents the
// source's handoffs do not allow, agents at their load limit, and (unless
// asked for by name) model agents whose capabilities and description
// match nothing of the reason, summary and suggested action. The target
// asked for comes first; then model agents by match, tier, success rate
// and lower load; people last, as the last resort. Ties go by name, so the
// choice is the same on every replay.
func ChooseHandoff(ask HandoffAsk, registry []HandoffCandidate) HandoffChoice {
	text := strings.ToLower(strings.Join([]string{ask.Reason, ask.Summary, ask.SuggestedAction}, " "))
	type scored struct {
		c     HandoffCandidate
		match int
	}
	var ok []scored
	var choice HandoffChoice
	refuse := func(name, why string) { choice.Refused = append(choice.Refused, HandoffRefusal{Agent: name, Why: why}) }
	for _, c := range registry {
		match := capabilityMatch(c, text)
		switch {
		case c.Name == ask.From:
			refuse(c.Name, "it is the agent handing over")
		case slices.Contains(ask.Path, c.Name):
			refuse(c.Name, "already in the handoff path "+strings.Join(ask.Path, " -> "))
		case !handoffAllowed(ask, c):
			refuse(c.Name, fmt.Sprintf("not in the handoffs of %s %v", ask.From, ask.Allowed))
		case c.MaxConcurrent > 0 && c.Running >= c.MaxConcurrent:
			refuse(c.Name, fmt.Sprintf("over capacity: %d of %d runs", c.Running, c.MaxConcurrent))
		case match == 0 && !c.Human && c.Name != ask.To:
			refuse(c.Name, "no capability match")
		default:
			ok = append(ok, scored{c, match})
		}
	}
	slices.SortStableFunc(ok, func(a, b scored) int {
		return cmp.Or(
			boolOrder(a.c.Name == ask.To, b.c.Name == ask.To), // the target asked for first
			boolOrder(!a.c.Human, !b.c.Human),                 // people last
			cmp.Compare(b.match, a.match),
			cmp.Compare(b.c.Tier, a.c.Tier),
			cmp.Compare(b.c.SuccessRate, a.c.SuccessRate),
			cmp.Compare(a.c.Running, b.c.Running),
			cmp.Compare(a.c.Name, b.c.Name),
		)
	})
	for _, s := range ok {
		choice.Ranked = append(choice.Ranked, s.c.Name)
	}
	return choice
}

// boolOrder puts true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// NeedsLoad reports whether a candidate's live load and success rate can
// matter to ChooseHandoff: not when it is refused before they are read
// (the source itself, an agent already in the path, one the source's
// handoffs do not allow). Reading the registry counts three queries per
// agent; a chain of 200 agents read all of them at every handoff.
func NeedsLoad(ask HandoffAsk, c HandoffCandidate) bool {
	return c.Name != ask.From && !slices.Contains(ask.Path, c.Name) && handoffAllowed(ask, c)
}

// CompactRefusals keeps, of the refusals that share one reason, the
// first keep and one entry counting the rest ("+N more"): an agent whose
// handoffs name one target, in a registry of 200 agents, would otherwise
// record 199 times "not in the handoffs of ..." at every handoff, in the
// trace and the carried run. Order is kept; refusals with reasons of
// their own are never folded.
func CompactRefusals(refused []HandoffRefusal, keep int) []HandoffRefusal {
	count := map[string]int{}
	for _, f := range refused {
		count[f.Why]++
	}
	seen := map[string]int{}
	var out []HandoffRefusal
	for _, f := range refused {
		seen[f.Why]++
		switch n := seen[f.Why]; {
		case count[f.Why] <= keep+1 || n <= keep:
			out = append(out, f)
		case n == keep+1:
			out = append(out, HandoffRefusal{Agent: fmt.Sprintf("+%d more", count[f.Why]-keep), Why: f.Why})
		}
	}
	return out
}

// handoffAllowed applies the source's handoffs list.
func handoffAllowed(ask HandoffAsk, c HandoffCandidate) bool {
	for _, a := range ask.Allowed {
		if a == "*" || a == c.Name || (a == "human" && c.Human) {
			return true
		}
	}
	return false
}

// capabilityMatch counts the candidate's capabilities, and the words of
// its description, found in the text. A capability is found when each of
// its words is ("process_refund" in "process the refund"); words are
// found by their stem at a word's start ("refunds" finds "refund" and
// "refunded"). Words of three letters or fewer in a description do not
// count.
func capabilityMatch(c HandoffCandidate, text string) int {
	n := 0
	for _, capability := range c.Capabilities {
		words := splitWords(strings.ToLower(capability))
		found := len(words) > 0
		for _, w := range words {
			found = found && containsWord(text, stem(w))
		}
		if found {
			n++
		}
	}
	seen := map[string]bool{}
	for _, w := range splitWords(strings.ToLower(c.Description)) {
		if len(w) > 3 && !seen[w] && containsWord(text, stem(w)) {
			seen[w] = true
			n++
		}
	}
	return n
}

// splitWords splits lower-case text into words of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// stem strips an English plural, so a word is found in its other forms
// ("refunds" -> "refund", "processes" -> "process", "queries" -> "quer").
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "es") && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// containsWord finds w in text as a word or a word's start ("refund"
// finds "refunds").
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isWordByte(text[at-1]) {
			return true
		}
		i = at + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b > 127
}
