package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Seed 004's customer service: a general agent, orders, refunds, tech
// support, and a person as the last resort.
func serviceRegistry() []HandoffCandidate {
	return []HandoffCandidate{
		{Name: "general", Description: "Answers general questions.", Capabilities: []string{"faq"}, Tier: 1, SuccessRate: 0.9},
		{Name: "orders", Description: "Order status and tracking.", Capabilities: []string{"query_order", "track_shipping"}, Tier: 1, SuccessRate: 0.8},
		{Name: "advanced_orders", Description: "Special orders.", Capabilities: []string{"cancel_order", "query_special_order"}, Tier: 2, SuccessRate: 0.7},
		{Name: "refunds", Description: "Refunds and refund policy.", Capabilities: []string{"process_refund", "query_policy"}, Tier: 2, SuccessRate: 0.95},
		{Name: "tech", Description: "Technical support.", Capabilities: []string{"troubleshoot_tech", "reset_account"}, Tier: 2, SuccessRate: 0.9},
		{Name: "person", Description: "A person from customer service.", Human: true, Tier: 3, SuccessRate: -1},
	}
}

func TestChooseHandoff(t *testing.T) {
	all := []string{"*"}
	tests := []struct {
		name        string
		ask         HandoffAsk
		registry    func([]HandoffCandidate) []HandoffCandidate
		wantRanked  []string
		wantRefused map[string]string
	}{
		{
			name: "capability match picks refunds, a person last",
			ask:  HandoffAsk{From: "orders", Allowed: all, Path: []string{"general", "orders"}, Reason: "out_of_scope", Summary: "The customer wants a refund for order 42", SuggestedAction: "process refund"},
			// advanced_orders ("Special orders.") matches "order 42" once.
			wantRanked: []string{"refunds", "advanced_orders", "person"},
			wantRefused: map[string]string{
				"orders": "it is the agent handing over", "general": "already in the handoff path general -> orders",
				"tech": "no capability match",
			},
		},
		{
			name:       "the target asked for comes first, even without a match",
			ask:        HandoffAsk{From: "general", Allowed: all, Path: []string{"general"}, To: "tech", Summary: "refund please"},
			wantRanked: []string{"tech", "refunds", "person"},
		},
		{
			name: "a bounce back is refused and the next candidate taken",
			ask:  HandoffAsk{From: "refunds", Allowed: all, Path: []string{"general", "orders", "refunds"}, To: "orders", Summary: "track the order"},
			// the next candidate: advanced_orders ("Special orders." finds "the order"), a person last
			wantRanked:  []string{"advanced_orders", "person"},
			wantRefused: map[string]string{"orders": "already in the handoff path general -> orders -> refunds"},
		},
		{
			name: "over capacity",
			ask:  HandoffAsk{From: "orders", Allowed: all, Path: []string{"orders"}, Summary: "refund"},
			registry: func(r []HandoffCandidate) []HandoffCandidate {
				r[3].MaxConcurrent, r[3].Running = 2, 2
				return r
			},
			wantRanked:  []string{"person"},
			wantRefused: map[string]string{"refunds": "over capacity: 2 of 2 runs"},
		},
		{
			name:        "handoffs limit the targets; human names any person",
			ask:         HandoffAsk{From: "orders", Allowed: []string{"tech", "human"}, Path: []string{"orders"}, Summary: "refund and reset_account"},
			wantRanked:  []string{"tech", "person"},
			wantRefused: map[string]string{"refunds": "not in the handoffs of orders [tech human]"},
		},
		{
			name: "ties go by tier, then success rate, then lower load, then name",
			ask:  HandoffAsk{From: "general", Allowed: all, Summary: "cancel_order and process_refund"},
			registry: func(r []HandoffCandidate) []HandoffCandidate {
				for i := range r {
					r[i].Description = "" // capabilities alone: one match each
				}
				r[2].SuccessRate = 0.95 // advanced_orders now ties refunds on tier and rate
				r[2].Running, r[3].Running = 1, 5
				return r
			},
			wantRanked: []string{"advanced_orders", "refunds", "person"},
		},
		{
			name:        "nothing left",
			ask:         HandoffAsk{From: "orders", Allowed: []string{"refunds"}, Path: []string{"orders", "refunds"}, Summary: "refund"},
			wantRefused: map[string]string{"refunds": "already in the handoff path orders -> refunds"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := serviceRegistry()
			if tt.registry != nil {
				reg = tt.registry(reg)
			}
			got := ChooseHandoff(tt.ask, reg)
			require.Equal(t, tt.wantRanked, got.Ranked)
			refused := map[string]string{}
			for _, r := range got.Refused {
				refused[r.Agent] = r.Why
			}
			for agent, why := range tt.wantRefused {
				require.Equal(t, why, refused[agent], agent)
			}
			require.Len(t, got.Refused, len(reg)-len(got.Ranked), "every candidate is ranked or refused")
		})
	}
}

func TestCapabilityMatchIsWordWise(t *testing.T) {
	c := HandoffCandidate{Description: "Refunds and the refund policy", Capabilities: []string{"process_refund"}}
	require.Equal(t, 4, capabilityMatch(c, "please process refund, per the policy on refunds"), "the capability, and refunds, refund, policy")
	require.Zero(t, capabilityMatch(c, "nonrefundable items"), "a word inside another does not count")
	require.Zero(t, capabilityMatch(HandoffCandidate{Description: "and the for"}, "and the for"), "short words do not count")
}

// Capabilities and description words are found in their other forms, and
// a capability of several words needs each of them.
func TestCapabilityMatchFindsWordForms(t *testing.T) {
	refunds := HandoffCandidate{Name: "refunds", Description: "Processes refunds and returns.", Capabilities: []string{"refunds", "process_refund"}}
	for _, tc := range []struct {
		text string
		want int
	}{
		{"the customer wants a refund", 2},                  // refunds (capability) + refunds (description)
		{"please process the refund now", 4},                // + process_refund, processes
		{"order 1234 was returned damaged", 1},              // returns
		{"the customer asks about shipping", 0},             //
		{"prefund the account", 0},                          // not at a word's start
		{"refund_request for order 9 and processing it", 4}, // underscores separate words
	} {
		require.Equal(t, tc.want, capabilityMatch(refunds, tc.text), tc.text)
	}
}

// The registry is read only for the agents whose load can matter.
func TestNeedsLoad(t *testing.T) {
	ask := HandoffAsk{From: "desk1", Allowed: []string{"desk2", "human"}, Path: []string{"desk0", "desk1"}}
	cases := []struct {
		c    HandoffCandidate
		want bool
	}{
		{HandoffCandidate{Name: "desk2"}, true},
		{HandoffCandidate{Name: "desk3"}, false},               // not allowed
		{HandoffCandidate{Name: "desk1"}, false},               // the source
		{HandoffCandidate{Name: "desk0"}, false},               // already in the path
		{HandoffCandidate{Name: "clerk", Human: true}, true},   // "human" allows any person
		{HandoffCandidate{Name: "robot", Human: false}, false}, // ... and no model agent
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, NeedsLoad(ask, tc.c), tc.c.Name)
	}
	any := HandoffAsk{From: "a", Allowed: []string{"*"}}
	require.True(t, NeedsLoad(any, HandoffCandidate{Name: "b"}))
	require.False(t, NeedsLoad(any, HandoffCandidate{Name: "a"}))
}

func TestCompactRefusals(t *testing.T) {
	r := func(agent, why string) HandoffRefusal { return HandoffRefusal{Agent: agent, Why: why} }
	not := "not in the handoffs of desk1 [desk2]"
	many := []HandoffRefusal{r("desk0", "already in the handoff path desk0 -> desk1"), r("a", not), r("b", not), r("c", not), r("d", not), r("e", not), r("desk2", "over capacity: 3 of 3 runs")}
	require.Equal(t, []HandoffRefusal{r("desk0", "already in the handoff path desk0 -> desk1"), r("a", not), r("b", not), r("c", not),
		r("+2 more", not), r("desk2", "over capacity: 3 of 3 runs")}, CompactRefusals(many, 3))
	four := []HandoffRefusal{r("a", not), r("b", not), r("c", not), r("d", not)}
	require.Equal(t, four, CompactRefusals(four, 3), "one more than keep: kept whole, not folded into \"+1 more\"")
	require.Empty(t, CompactRefusals(nil, 3))
}
