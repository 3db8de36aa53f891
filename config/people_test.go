package config

import (
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testKey is a public key of people.keys, made from seed so each name has
// its own.
func testKey(seed byte) string {
	return KeyText(ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize))).Public().(ed25519.PublicKey))
}

// peopleBlock is a people: section of finance (ana, bob) and ops (carol),
// each with a key, and the console's key.
var peopleBlock = "\n" + y(
	"people:",
	"  groups: {finance: [ana, bob], ops: [carol]}",
	"  keys:",
	"    ana: "+testKey(0),
	"    bob: "+testKey(1),
	"    carol: "+testKey(2),
	"    console: "+testKey(3),
)

func TestPeopleRefused(t *testing.T) {
	pay := func(approval string) string {
		return withTool("  - name: pay", "    http: {url: http://t/pay}", "    effect: write", "    approval: "+approval)
	}
	runProblems(t, []problemCase{
		{"an unknown group", pay("{by: [finance, legal]}") + peopleBlock, 6, "tools[0].approval.by[1]", `unknown group "legal" (known: finance, ops)`},
		{"by without people", pay("{by: [finance]}"), 6, "tools[0].approval.by", "approval.by names groups but the file has no people:"},
		{"more approvers than people", pay("{by: [ops], approvers: 2}") + peopleBlock, 6, "tools[0].approval.approvers", "approvers is 2, but groups ops have 1 people"},
		{"a member without a key", pay("{by: [ops]}") + "\n" + y(
			"people:", "  groups: {ops: [carol, dan]}", "  keys: {carol: "+testKey(2)+"}"),
			6, "tools[0].approval.by[0]", "dan of group ops has no key in people.keys: approvals from dan could not be checked"},
		{"a key that is not ed25519", pay("{by: [ops]}") + "\n" + y(
			"people:", "  groups: {ops: [carol]}", "  keys: {carol: rsa:AAAA}"),
			14, "people.keys.carol", "invalid key: want ed25519:"},
		{"a short key", pay("{by: [ops]}") + "\n" + y(
			"people:", "  groups: {ops: [carol]}", "  keys: {carol: \"ed25519:AAAA\"}"),
			14, "people.keys.carol", "got 3 bytes"},
		{"console is not a person", pay("{by: [ops]}") + "\n" + y(
			"people:", "  groups: {ops: [console]}", "  keys: {console: "+testKey(3)+"}"),
			13, "people.groups.ops[0]", `"console" names the console's key, not a person`},
		{"an unknown field", pay("always") + "\n" + y("people:", "  teams: {}"), 13, "people.teams", `unknown field "teams"`},
	})
}

// A run carries the groups its tools name and the keys of their members
// and the console, nothing else of people.
func TestResolvedCarriesPeople(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: pay, http: {url: http://t/pay}, effect: write, approval: {by: [ops, finance], approvers: 2}}",
		"  - {name: look, http: {url: http://t/look}}",
		"agents:",
		"  - {name: payer, tools: [pay]}",
		"  - {name: looker, tools: [look]}",
	) + "\n" + y(
		"people:",
		"  groups: {finance: [ana, bob], ops: [carol], legal: [dan]}",
		"  keys: {ana: "+testKey(0)+", bob: "+testKey(1)+", carol: "+testKey(2)+", dan: "+testKey(4)+", console: "+testKey(3)+"}",
	))
	require.NoError(t, err)
	r, err := f.Resolve("payer", nil)
	require.NoError(t, err)
	require.Equal(t, &People{
		Groups: map[string][]string{"finance": {"ana", "bob"}, "ops": {"carol"}},
		Keys:   map[string]string{"ana": testKey(0), "bob": testKey(1), "carol": testKey(2), "console": testKey(3)},
	}, r.People)
	pay, _ := r.Tool("pay")
	require.Equal(t, []string{"ops", "finance"}, pay.Approval.Groups(), "escalation order kept")
	require.Equal(t, 2, pay.Approval.Needed())

	r, err = f.Resolve("looker", nil)
	require.NoError(t, err)
	require.Nil(t, r.People, "a run whose tools name nobody carries no people")
}
