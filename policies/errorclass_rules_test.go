package policies

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// A tool's errors: rules are tried in order, the first match wins, and
// without a match the status decides.
func TestClassifyAppliesRulesBeforeTheDefault(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		message string
		rules   []config.ErrorRule
		want    Class
	}{
		{
			name:   "no rules: the status default",
			status: 429, message: "slow down",
			want: Transient,
		},
		{
			name:   "status-only rule overrides the default",
			status: 429, message: "quota exhausted for the month",
			rules: []config.ErrorRule{{Status: 429, Class: "persistent"}},
			want:  Persistent,
		},
		{
			name:   "status-only rule ignores other statuses",
			status: 503, message: "down",
			rules: []config.ErrorRule{{Status: 429, Class: "persistent"}},
			want:  Transient,
		},
		{
			name:   "message rule matches any status",
			status: 500, message: "Invalid Date: 2024-13-45",
			rules: []config.ErrorRule{{Message: "(?i)invalid date", Class: "invalid_args"}},
			want:  InvalidArgs,
		},
		{
			name:   "message rule matches a transport failure",
			status: StatusTransport, message: "dial tcp: no such host",
			rules: []config.ErrorRule{{Message: "no such host", Class: "fatal"}},
			want:  Fatal,
		},
		{
			name:   "message rule that does not match falls through",
			status: 500, message: "internal error",
			rules: []config.ErrorRule{{Message: "(?i)invalid date", Class: "invalid_args"}},
			want:  Transient,
		},
		{
			name:   "status and message must both match",
			status: 404, message: "flight UA123 not found",
			rules: []config.ErrorRule{{Status: 404, Message: "flight .* not found", Class: "invalid_args"}},
			want:  InvalidArgs,
		},
		{
			name:   "status and message: right status, wrong message",
			status: 404, message: "no such route",
			rules: []config.ErrorRule{{Status: 404, Message: "flight .* not found", Class: "invalid_args"}},
			want:  Persistent,
		},
		{
			name:   "status and message: right message, wrong status",
			status: 410, message: "flight UA123 not found",
			rules: []config.ErrorRule{{Status: 404, Message: "flight .* not found", Class: "invalid_args"}},
			want:  Persistent,
		},
		{
			name:   "first match wins over a later match",
			status: 429, message: "rate limited",
			rules: []config.ErrorRule{
				{Message: "rate", Class: "fatal"},
				{Status: 429, Class: "persistent"},
			},
			want: Fatal,
		},
		{
			name:   "a later rule wins when the first does not match",
			status: 429, message: "rate limited",
			rules: []config.ErrorRule{
				{Status: 500, Class: "fatal"},
				{Message: "limited$", Class: "persistent"},
			},
			want: Persistent,
		},
		{
			name:   "a rule can make a default-fatal status transient",
			status: 401, message: "token expired, refreshing",
			rules: []config.ErrorRule{{Status: 401, Message: "expired", Class: "transient"}},
			want:  Transient,
		},
		{
			name:   "an uncompilable pattern never matches",
			status: 400, message: "(",
			rules: []config.ErrorRule{{Message: "(", Class: "fatal"}},
			want:  InvalidArgs,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Classify(tc.status, tc.message, tc.rules))
		})
	}
}

// MatchRule says whether a rule matched at all, so built-in tools can keep
// their own class when none does.
func TestMatchRuleReportsWhetherARuleMatched(t *testing.T) {
	rules := []config.ErrorRule{{Message: "(?i)sold out", Class: "persistent"}}

	c, ok := MatchRule(0, "Flight SOLD OUT", rules)
	require.True(t, ok)
	require.Equal(t, Persistent, c)

	c, ok = MatchRule(0, "flight booked", rules)
	require.False(t, ok)
	require.Equal(t, Class(""), c)

	_, ok = MatchRule(0, "anything", nil)
	require.False(t, ok)
}
