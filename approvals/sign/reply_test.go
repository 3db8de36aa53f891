package sign

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func reply() Reply {
	return Reply{Chain: "chain-1", Workflow: "ops-1", Node: "n7", Text: "go on", Output: json.RawMessage(`{"ok": true}`), By: "carol"}
}

func signedReply(t *testing.T, seed byte, r Reply, signer string) string {
	t.Helper()
	s, err := SignReply(key(seed), r, signer, at)
	require.NoError(t, err)
	return s
}

func TestCheckReply(t *testing.T) {
	ops := Ask{People: people, Groups: []string{"ops"}, Needed: 1}
	with := func(change func(*Reply)) Reply {
		r := reply()
		change(&r)
		return r
	}
	asApproval := func() string {
		a := Approval{Chain: "chain-1", Workflow: "ops-1", CallID: "n7", Tool: "", Decision: "reply", By: "carol"}
		return signed(t, 2, a, "carol")
	}
	for _, tc := range []struct {
		name string
		sent Reply
		sig  string
		want string
	}{
		{"carol signs her reply", reply(), signedReply(t, 2, reply(), "carol"), ""},
		{"the output written otherwise", with(func(r *Reply) { r.Output = json.RawMessage(`{ "ok":true }`) }), signedReply(t, 2, reply(), "carol"), ""},
		{"the console signs for carol", reply(), signedReply(t, 3, reply(), "console"), ""},
		{"no signature", reply(), "", `reply: human node n7 answers only to people of ops: the reply must carry a "signature" (unstuck reply --as NAME --key FILE`},
		{"someone outside ops", with(func(r *Reply) { r.By = "ana" }), signedReply(t, 0, with(func(r *Reply) { r.By = "ana" }), "ana"), "reply: ana is not in ops, who answer for human node n7"},
		{"another text", with(func(r *Reply) { r.Text = "stop" }), signedReply(t, 2, reply(), "carol"), "the signature does not match this reply"},
		{"another node", reply(), signedReply(t, 2, with(func(r *Reply) { r.Node = "n8" }), "carol"), "does not match"},
		{"another run", reply(), signedReply(t, 2, with(func(r *Reply) { r.Chain = "chain-0" }), "carol"), "does not match"},
		{"an approval's signature", reply(), asApproval(), "does not match"},
		{"carol's key for bob", with(func(r *Reply) { r.By = "bob" }), signedReply(t, 2, with(func(r *Reply) { r.By = "bob" }), "carol"), `signed with carol's key, but "by" is bob`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ops.CheckReply(tc.sent, tc.sig)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
