package policies

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestHandoffRule(t *testing.T) {
	const person = `(?i)\b(talk|speak) to (a )?(person|human|someone)\b`
	all := &config.HandoffWhen{ToolFailures: 3, StepsWithoutProgress: 4, UserAsks: person}
	long := strings.Repeat("blah ", 40) + "please let me talk to a person now, " + strings.Repeat("thanks ", 40)
	tests := []struct {
		name   string
		when   *config.HandoffWhen
		view   HandoffView
		want   HandoffTrigger
		wantOK bool
	}{
		{name: "no rules", when: nil, view: HandoffView{FailuresInARow: 99, StepsWithoutProgress: 99, UserWords: []string{"talk to a person"}}},
		{name: "every rule off", when: &config.HandoffWhen{}, view: HandoffView{FailuresInARow: 99, StepsWithoutProgress: 99, UserWords: []string{"talk to a person"}}},
		{name: "nothing reached", when: all, view: HandoffView{FailuresInARow: 2, StepsWithoutProgress: 3, UserWords: []string{"Book NYC to LAX"}}},

		{
			name: "tool failures reached", when: all, view: HandoffView{FailuresInARow: 3},
			want: HandoffTrigger{Reason: "tool_failure", Why: "3 tool calls failed in a row (handoff_when.tool_failures: 3)"}, wantOK: true,
		},
		{
			name: "tool failures past the rule (checked late) still fire, with the figure seen", when: all, view: HandoffView{FailuresInARow: 5},
			want: HandoffTrigger{Reason: "tool_failure", Why: "5 tool calls failed in a row (handoff_when.tool_failures: 3)"}, wantOK: true,
		},
		{
			name: "one failure", when: &config.HandoffWhen{ToolFailures: 1}, view: HandoffView{FailuresInARow: 1},
			want: HandoffTrigger{Reason: "tool_failure", Why: "1 tool call failed in a row (handoff_when.tool_failures: 1)"}, wantOK: true,
		},
		{name: "tool failures off", when: &config.HandoffWhen{StepsWithoutProgress: 4}, view: HandoffView{FailuresInARow: 50}},

		{
			name: "steps without progress reached", when: all, view: HandoffView{StepsWithoutProgress: 4},
			want: HandoffTrigger{Reason: "complexity_exceeded", Why: "4 model steps in a row completed no tool call (handoff_when.steps_without_progress: 4)"}, wantOK: true,
		},
		{
			name: "one step", when: &config.HandoffWhen{StepsWithoutProgress: 1}, view: HandoffView{StepsWithoutProgress: 1},
			want: HandoffTrigger{Reason: "complexity_exceeded", Why: "1 model step in a row completed no tool call (handoff_when.steps_without_progress: 1)"}, wantOK: true,
		},
		{name: "steps off", when: &config.HandoffWhen{ToolFailures: 3}, view: HandoffView{StepsWithoutProgress: 50}},

		{
			name: "the user asks in the task", when: all, view: HandoffView{UserWords: []string{"Let me talk to a person"}},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "Let me talk to a person" (handoff_when.user_asks)`}, wantOK: true,
		},
		{
			name: "the user asks in a reply", when: all, view: HandoffView{UserWords: []string{"Book NYC to LAX", "no", "Can I speak to someone?"}, Seen: 2},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "Can I speak to someone?" (handoff_when.user_asks)`}, wantOK: true,
		},
		{
			name: "the first unseen words that match are quoted", when: all, view: HandoffView{UserWords: []string{"ok", "talk to a human", "speak to a person"}, Seen: 1},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "talk to a human" (handoff_when.user_asks)`}, wantOK: true,
		},
		{name: "words already seen do not fire again", when: all, view: HandoffView{UserWords: []string{"talk to a person", "thanks"}, Seen: 1}},
		{name: "every word seen", when: all, view: HandoffView{UserWords: []string{"talk to a person"}, Seen: 1}},
		{name: "seen past the words", when: all, view: HandoffView{UserWords: []string{"talk to a person"}, Seen: 7}},
		{
			name: "a negative seen reads every word", when: all, view: HandoffView{UserWords: []string{"talk to a person"}, Seen: -1},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "talk to a person" (handoff_when.user_asks)`}, wantOK: true,
		},
		{name: "no words", when: all, view: HandoffView{}},
		{name: "case matters without (?i)", when: &config.HandoffWhen{UserAsks: "person"}, view: HandoffView{UserWords: []string{"A PERSON please"}}},
		{name: "a bad expression is off", when: &config.HandoffWhen{UserAsks: "(person"}, view: HandoffView{UserWords: []string{"(person"}}},
		{
			name: "the quote is on one line", when: all, view: HandoffView{UserWords: []string{"hi\ntalk to a person"}},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "hi\ntalk to a person" (handoff_when.user_asks)`}, wantOK: true,
		},
		{
			name: "long words are quoted around the match", when: all, view: HandoffView{UserWords: []string{long}},
			want: HandoffTrigger{Reason: "user_escalation", Why: `the user asked: "… blah blah blah please let me talk to a person now, ` + strings.Repeat("thanks ", 9) + `thank…" (handoff_when.user_asks)`}, wantOK: true,
		},

		{
			name: "tool failures come first", when: all, view: HandoffView{FailuresInARow: 3, StepsWithoutProgress: 4, UserWords: []string{"talk to a person"}},
			want: HandoffTrigger{Reason: "tool_failure", Why: "3 tool calls failed in a row (handoff_when.tool_failures: 3)"}, wantOK: true,
		},
		{
			name: "then steps without progress", when: all, view: HandoffView{FailuresInARow: 2, StepsWithoutProgress: 4, UserWords: []string{"talk to a person"}},
			want: HandoffTrigger{Reason: "complexity_exceeded", Why: "4 model steps in a row completed no tool call (handoff_when.steps_without_progress: 4)"}, wantOK: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := HandoffRule(tc.when, tc.view)
			require.Equal(t, tc.wantOK, ok)
			if !ok {
				require.Zero(t, got)
				return
			}
			require.Contains(t, HandoffReasons, got.Reason)
			require.Equal(t, tc.want, got)
		})
	}
}

// HandoffRule reads its view and nothing else: the words are not changed
// and the same view answers the same trigger.
func TestHandoffRulePure(t *testing.T) {
	when := &config.HandoffWhen{UserAsks: "person"}
	words := []string{"a", "a person"}
	v := HandoffView{UserWords: words}
	first, ok := HandoffRule(when, v)
	require.True(t, ok)
	again, _ := HandoffRule(when, v)
	require.Equal(t, first, again)
	require.Equal(t, []string{"a", "a person"}, words)
}

func TestQuoteAround(t *testing.T) {
	tests := []struct {
		name      string
		s, match  string
		want      string // when set, the whole quote
		prefix    bool   // starts with "…"
		suffix    bool   // ends with "…"
		wantMatch bool   // the quote holds the match
	}{
		{name: "short is whole", s: "talk to a person", match: "person", want: "talk to a person"},
		{name: "exactly the bound is whole", s: strings.Repeat("x", quoteMax-6) + "person", match: "person", want: strings.Repeat("x", quoteMax-6) + "person"},
		{name: "match at the start", s: "person " + strings.Repeat("x", 200), match: "person", suffix: true, wantMatch: true},
		{name: "match at the end", s: strings.Repeat("x", 200) + " person", match: "person", prefix: true, wantMatch: true},
		{name: "match in the middle", s: strings.Repeat("x", 200) + " person " + strings.Repeat("y", 200), match: "person", prefix: true, suffix: true, wantMatch: true},
		{name: "runes are never cut", s: strings.Repeat("é", 200) + " person " + strings.Repeat("ü", 200), match: "person", prefix: true, suffix: true, wantMatch: true},
		{name: "a long match is cut", s: strings.Repeat("x", 10) + strings.Repeat("p", 300), match: strings.Repeat("p", 300), prefix: false, suffix: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from := strings.Index(tc.s, tc.match)
			got := quoteAround(tc.s, from)
			require.True(t, utf8.ValidString(got))
			if tc.want != "" {
				require.Equal(t, tc.want, got)
				return
			}
			require.Equal(t, tc.prefix, strings.HasPrefix(got, "…"), got)
			require.Equal(t, tc.suffix, strings.HasSuffix(got, "…"), got)
			body := strings.TrimSuffix(strings.TrimPrefix(got, "…"), "…")
			require.Equal(t, quoteMax, utf8.RuneCountInString(body), "the quote is full")
			require.True(t, strings.Contains(tc.s, body))
			if tc.wantMatch {
				require.Contains(t, body, tc.match)
			}
		})
	}
}

// The reasons the rules give are handoff reasons the handoff tool takes.
func TestHandoffRuleReasons(t *testing.T) {
	for _, r := range []string{reasonToolFailure, reasonComplexityExceeded, reasonUserEscalation} {
		require.True(t, slices.Contains(HandoffReasons, r), r)
	}
}
