package approvalinbox

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

var t0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

func call(wf, tool, args string, waitedMin int) Call {
	return Call{WorkflowID: wf, CallID: "n3", Tool: tool, Args: json.RawMessage(args), Since: t0.Add(-time.Duration(waitedMin) * time.Minute)}
}

func TestGroupCallsByToolAndShapeTheLongestWaitFirst(t *testing.T) {
	groups := GroupCalls([]Call{
		call("a", "pay", `{"amount": 5, "to": "x"}`, 1),
		call("b", "pay", `{"to": "y", "amount": 7}`, 9),
		call("c", "pay", `{"amount": "7"}`, 3),
		call("d", "book", `{"seat": "1A"}`, 20),
	})
	require.Len(t, groups, 3)
	require.Equal(t, "book", groups[0].Tool, "the oldest wait first")
	require.Equal(t, "{amount: number, to: string}", groups[1].Shape)
	require.Equal(t, []string{"b/n3", "a/n3"}, refs(groups[1].Calls), "in a group the longest wait first")
	require.Equal(t, "b", groups[1].Oldest().WorkflowID)
	require.Equal(t, GroupID("pay", "{amount: number, to: string}"), groups[1].ID)
	require.Equal(t, "{amount: string}", groups[2].Shape)
}

func TestChooseTakesOnlyOrAllButExceptAndSkipsNamesNoLongerWaiting(t *testing.T) {
	calls := []Call{call("a", "pay", `{}`, 1), call("b", "pay", `{}`, 2), call("c/x", "pay", `{}`, 3)}
	for _, c := range []struct {
		name         string
		only, except []string
		want         []string
		skipped      []string
	}{
		{"all", nil, nil, []string{"a/n3", "b/n3", "c/x/n3"}, nil},
		{"except a run", nil, []string{"b"}, []string{"a/n3", "c/x/n3"}, nil},
		{"except a call", nil, []string{"c/x/n3"}, []string{"a/n3", "b/n3"}, nil},
		{"only", []string{"a/n3", "c/x"}, nil, []string{"a/n3", "c/x/n3"}, nil},
		{"only, one settled meanwhile", []string{"a/n3", "gone/n4"}, nil, []string{"a/n3"}, []string{"gone/n4"}},
	} {
		got, skipped := choose(calls, Decision{Only: c.only, Except: c.except})
		require.Equal(t, c.want, refs(got), c.name)
		var names []string
		for _, s := range skipped {
			names = append(names, s.Ref)
		}
		require.Equal(t, c.skipped, names, c.name)
	}
}

func TestADecisionNamesTheGroupItCameFrom(t *testing.T) {
	d := Decision{GroupID: "0123456789", Decision: signals.DecisionReject, By: "ana", Reason: "too large"}
	require.NoError(t, d.Check())
	req := d.request(call("a", "pay", `{}`, 1))
	require.Equal(t, signals.ApproveRequest{CallID: "n3", Decision: "reject",
		Audit: signals.Audit{By: "ana", Reason: "group 0123456789 rejected by ana: too large"}}, req)
	require.Equal(t, "group 0123456789 approved by bob",
		Decision{GroupID: "0123456789", Decision: "approve", By: "bob"}.request(call("a", "pay", `{}`, 1)).Reason)
}

func TestABadDecisionIsRefusedNamingWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		d    Decision
		want string
	}{
		{Decision{GroupID: "nope", Decision: "approve", By: "ana"}, `group "nope" is not a group id`},
		{Decision{GroupID: "0123456789", Decision: "modify", By: "ana"}, `decision "modify": a group takes approve or reject`},
		{Decision{GroupID: "0123456789", Decision: "approve"}, "by is empty"},
		{Decision{GroupID: "0123456789", Decision: "approve", By: "ana", Only: []string{"a"}, Except: []string{"b"}}, "not both"},
	} {
		require.ErrorContains(t, c.d.Check(), c.want)
	}
}

func refs(calls []Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Ref())
	}
	return out
}
