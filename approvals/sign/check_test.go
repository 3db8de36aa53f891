package sign

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
)

var key = testutil.PersonKey

func pub(seed byte) string { return config.KeyText(key(seed).Public().(ed25519.PublicKey)) }

var people = &config.People{
	Groups: map[string][]string{"finance": {"ana", "bob"}, "ops": {"carol"}},
	Keys:   map[string]string{"ana": pub(0), "bob": pub(1), "carol": pub(2), "console": pub(3)},
}

var at = time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)

// approval is ana's approval of call n5 of pay in run chain-1.
func approval() Approval {
	return Approval{Chain: "chain-1", Workflow: "pay-1", CallID: "n5", Tool: "pay", Decision: signals.DecisionApprove, By: "ana"}
}

func signed(t *testing.T, seed byte, a Approval, signer string) string {
	t.Helper()
	s, err := Sign(key(seed), a, signer, at)
	require.NoError(t, err)
	return s
}

func TestCheck(t *testing.T) {
	finance := Ask{People: people, Groups: []string{"finance"}, Needed: 1}
	twoPerson := Ask{People: people, Groups: []string{"finance"}, Needed: 2, Approved: []string{"ana"}}
	with := func(change func(*Approval)) Approval {
		a := approval()
		change(&a)
		return a
	}
	for _, tc := range []struct {
		name string
		ask  Ask
		sent Approval // what the message says
		sig  string   // the signature it carries
		want string   // "" accepted
	}{
		{"ana signs her approval", finance, approval(), signed(t, 0, approval(), "ana"), ""},
		{"the console signs for bob", finance, with(func(a *Approval) { a.By = "bob" }),
			signed(t, 3, with(func(a *Approval) { a.By = "bob" }), "console"), ""},
		{"no signature (a plain Temporal update)", finance, approval(), "", `approve: pay answers only to people of finance: the approval must carry a "signature"`},
		{"malformed", finance, approval(), "v1.ana.x.y", `"signature" is malformed: signing time "x"`},
		{"another version", finance, approval(), "v2.ana.1.AAAA", `"signature" is malformed: want v1.`},
		{"a signer outside the groups, whose key the run does not carry", finance, with(func(a *Approval) { a.By = "dan" }),
			signed(t, 4, with(func(a *Approval) { a.By = "dan" }), "dan"), "approve: dan is not in finance, who answer for pay"},
		{"a member without a key", Ask{People: &config.People{Groups: people.Groups}, Groups: []string{"finance"}, Needed: 1},
			approval(), signed(t, 0, approval(), "ana"), `signer "ana" has no key`},
		{"ana's key signing for bob", finance, with(func(a *Approval) { a.By = "bob" }),
			signed(t, 0, with(func(a *Approval) { a.By = "bob" }), "ana"), `signed with ana's key, but "by" is bob`},
		{"by left empty", finance, with(func(a *Approval) { a.By = "" }),
			signed(t, 3, with(func(a *Approval) { a.By = "" }), "console"), `"by" is empty`},
		{"forged: bob's key claims to be ana's", finance, approval(), signed(t, 1, approval(), "ana"), "the signature does not match this approval"},
		{"made for another call", finance, approval(), signed(t, 0, with(func(a *Approval) { a.CallID = "n6" }), "ana"), "does not match"},
		{"made for another run of the same workflow id", finance, approval(), signed(t, 0, with(func(a *Approval) { a.Chain = "chain-0" }), "ana"), "does not match"},
		{"made for another workflow", finance, approval(), signed(t, 0, with(func(a *Approval) { a.Workflow = "pay-2" }), "ana"), "does not match"},
		{"made for another tool", finance, approval(), signed(t, 0, with(func(a *Approval) { a.Tool = "refund" }), "ana"), "does not match"},
		{"made for a reject", finance, approval(), signed(t, 0, with(func(a *Approval) { a.Decision = signals.DecisionReject }), "ana"), "does not match"},
		{"made for other arguments", finance,
			with(func(a *Approval) { a.Decision, a.Args = signals.DecisionModify, json.RawMessage(`{"amount": 9000}`) }),
			signed(t, 0, with(func(a *Approval) { a.Decision, a.Args = signals.DecisionModify, json.RawMessage(`{"amount":90}`) }), "ana"), "does not match"},
		{"the same arguments written otherwise", finance,
			with(func(a *Approval) {
				a.Decision, a.Args = signals.DecisionModify, json.RawMessage(`{ "b": 1, "a": [2] }`)
			}),
			signed(t, 0, with(func(a *Approval) { a.Decision, a.Args = signals.DecisionModify, json.RawMessage(`{"a":[2],"b":1}`) }), "ana"), ""},
		{"made for another replacement", finance,
			with(func(a *Approval) {
				a.Decision, a.Call = signals.DecisionReplace, &signals.ReplacementCall{Tool: "refund", Args: json.RawMessage(`{}`)}
			}),
			signed(t, 0, with(func(a *Approval) {
				a.Decision, a.Call = signals.DecisionReplace, &signals.ReplacementCall{Tool: "pay_less", Args: json.RawMessage(`{}`)}
			}), "ana"), "does not match"},
		{"a person outside the group", finance, with(func(a *Approval) { a.By = "carol" }),
			signed(t, 2, with(func(a *Approval) { a.By = "carol" }), "carol"), "approve: carol is not in finance, who answer for pay"},
		{"the console cannot name an outsider either", finance, with(func(a *Approval) { a.By = "mallory" }),
			signed(t, 3, with(func(a *Approval) { a.By = "mallory" }), "console"), "mallory is not in finance"},
		{"a second approval by the same person", twoPerson, approval(), signed(t, 0, approval(), "ana"),
			"approve: ana already approved call n5; approvers: 2 needs 2 distinct people"},
		{"another person completes the rule", twoPerson, with(func(a *Approval) { a.By = "bob" }),
			signed(t, 1, with(func(a *Approval) { a.By = "bob" }), "bob"), ""},
		{"one who approved may still reject", twoPerson, with(func(a *Approval) { a.Decision = signals.DecisionReject }),
			signed(t, 0, with(func(a *Approval) { a.Decision = signals.DecisionReject }), "ana"), ""},
		{"modify under a two-person rule", twoPerson,
			with(func(a *Approval) { a.By, a.Decision, a.Args = "bob", signals.DecisionModify, json.RawMessage(`{}`) }),
			signed(t, 1, with(func(a *Approval) { a.By, a.Decision, a.Args = "bob", signals.DecisionModify, json.RawMessage(`{}`) }), "bob"),
			"approve: modify is refused under approvers: 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.ask.Check(tc.sent, tc.sig)
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, at, s.Time())
		})
	}
}

// The message is fixed: a signature made by one build checks in another.
func TestMessageIsStable(t *testing.T) {
	a := approval()
	a.Decision, a.Args = signals.DecisionModify, json.RawMessage(`{"b": 1, "a": "x"}`)
	msg, err := Message(a, "ana", at.Unix())
	require.NoError(t, err)
	require.Equal(t, `["unstuck-approval","v1","chain-1","pay-1","n5","pay","modify","{\"a\":\"x\",\"b\":1}","","","ana","ana","1796652000"]`, string(msg))
}

func TestParse(t *testing.T) {
	s := signed(t, 0, approval(), "ana")
	got, err := Parse(s)
	require.NoError(t, err)
	require.Equal(t, "ana", got.Signer)
	require.Equal(t, at.Unix(), got.At)
	for _, bad := range []string{"", "v1.ana.1", "v1.a.b.1.x", "v1.ana.-5." + strings.Split(s, ".")[3], "v1.ana.1.AAAA", "v1.an a.1." + strings.Split(s, ".")[3]} {
		_, err := Parse(bad)
		require.Error(t, err, bad)
	}
	_, err = Sign(key(0), approval(), "a.b", at)
	require.ErrorContains(t, err, `signer "a.b"`)
}

func TestAnswering(t *testing.T) {
	groups := []string{"finance", "ops", "legal"}
	require.Equal(t, []string{"finance"}, Answering(groups, 0), "the first group answers first")
	require.Equal(t, []string{"finance", "ops"}, Answering(groups, 1))
	require.Equal(t, groups, Answering(groups, 5), "past the last group, all of them")
}

func TestPrivateKeyFile(t *testing.T) {
	text, err := EncodePrivateKey(key(0))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(text), "-----BEGIN PRIVATE KEY-----"))
	back, err := DecodePrivateKey(text)
	require.NoError(t, err)
	require.Equal(t, key(0), back)
	_, err = DecodePrivateKey([]byte("ed25519:abc"))
	require.ErrorContains(t, err, `not a PEM "PRIVATE KEY"`)
}
