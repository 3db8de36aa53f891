package policies

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/unstuck-dev/unstuck/config"
)

// Handoff reasons of the rules of policies.handoff_when (one of
// HandoffReasons each).
const (
	reasonToolFailure        = "tool_failure"
	reasonComplexityExceeded = "complexity_exceeded"
	reasonUserEscalation     = "user_escalation"
)

// HandoffView is what the run knows when the rules are checked (before
// each model step).
type HandoffView struct {
	// FailuresInARow: the latest tool calls of the current agent that
	// failed, counted back to the last one that completed.
	FailuresInARow int
	// StepsWithoutProgress: the latest model steps of the current agent
	// in which no call completed.
	StepsWithoutProgress int
	// UserWords: the task, then each person's reply text, oldest first.
	UserWords []string
	// Seen: how many UserWords an earlier check already read. Only
	// UserWords[Seen:] are matched, so a piece of text fires user_asks
	// once: after each check (whatever fired, or nothing) the workflow
	// keeps len(UserWords) as the next Seen, across handoffs too, so the
	// next agent is not handed over for words the last one was.
	Seen int
}

// HandoffTrigger is a rule that fired: the handoff reason (one of
// HandoffReasons) and why, in words.
type HandoffTrigger struct {
	Reason, Why string
}

// quoteMax bounds the user's words a trigger's Why quotes, in runes.
const quoteMax = 120

// HandoffRule answers the first rule of when that fires for v, in the
// order tool_failures, steps_without_progress, user_asks; ok false when
// none does (or when is nil). A count rule fires once its figure reaches
// the rule's (a rule of 0 is off). user_asks fires for the first of
// UserWords[v.Seen:] it matches; the expression is compiled on each call
// (regexp is deterministic), and one that does not compile, which config
// validation refuses, is off.
func HandoffRule(when *config.HandoffWhen, v HandoffView) (HandoffTrigger, bool) {
	if when == nil {
		return HandoffTrigger{}, false
	}
	if n := when.ToolFailures; n > 0 && v.FailuresInARow >= n {
		return HandoffTrigger{
			Reason: reasonToolFailure,
			Why:    fmt.Sprintf("%s in a row (handoff_when.tool_failures: %d)", plural(v.FailuresInARow, "tool call failed", "tool calls failed"), n),
		}, true
	}
	if n := when.StepsWithoutProgress; n > 0 && v.StepsWithoutProgress >= n {
		return HandoffTrigger{
			Reason: reasonComplexityExceeded,
			Why:    fmt.Sprintf("%s in a row completed no tool call (handoff_when.steps_without_progress: %d)", plural(v.StepsWithoutProgress, "model step", "model steps"), n),
		}, true
	}
	if when.UserAsks == "" {
		return HandoffTrigger{}, false
	}
	re, err := regexp.Compile(when.UserAsks)
	if err != nil {
		return HandoffTrigger{}, false
	}
	for _, w := range v.UserWords[min(max(v.Seen, 0), len(v.UserWords)):] {
		if loc := re.FindStringIndex(w); loc != nil {
			return HandoffTrigger{
				Reason: reasonUserEscalation,
				Why:    fmt.Sprintf("the user asked: %q (handoff_when.user_asks)", quoteAround(w, loc[0])),
			}, true
		}
	}
	return HandoffTrigger{}, false
}

// plural writes "1 model step", "3 model steps".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// quoteAround is s, or when s is longer than quoteMax runes, quoteMax
// runes of it around the match that starts at byte from, with "…" where
// text was cut. It never cuts a rune in two.
func quoteAround(s string, from int) string {
	if utf8.RuneCountInString(s) <= quoteMax {
		return s
	}
	// A little context before the match (more when the match is near
	// the end), then as much of the match and what follows as fits.
	lead := min(utf8.RuneCountInString(s[:from]), max(quoteMax/4, quoteMax-utf8.RuneCountInString(s[from:])))
	start := from
	for range lead {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	end := start
	for i := 0; i < quoteMax && end < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	q := s[start:end]
	if start > 0 {
		q = "…" + q
	}
	if end < len(s) {
		q += "…"
	}
	return q
}
