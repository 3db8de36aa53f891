package testsuite

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A console that knows its people records who approved: the run's
// approval node names the person whose token (or whose name the reverse
// proxy gave) sent it, whatever the form says; a form naming someone else
// is refused and runs nothing.
func TestConsoleRecordsWhoApproved(t *testing.T) {
	t.Parallel()
	const anaToken, bobToken = "ana-0123456789abcdef", "bob-0123456789abcdef"
	for _, way := range []struct {
		name string
		opts console.Options
		as   func(*http.Request)
		who  string
	}{
		{"a token each", console.Options{People: map[string]string{anaToken: "ana", bobToken: "bob"}},
			func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+anaToken) }, "ana"},
		{"the proxy's header", console.Options{IdentityHeader: "X-Forwarded-User"},
			func(r *http.Request) { r.Header.Set("X-Forwarded-User", "ana@example.org") }, "ana@example.org"},
	} {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			tools := newBookingServer(t, "booked")
			cfg := `
model: { base_url: "{{MODEL}}", name: people }
tools:` + bookToolYAML(tools.URL) + `
agents:
  - { name: people-booker, instructions: Book., tools: [book] }
`
			script := scriptedmodel.Sequence(
				scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
				scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
			)
			s := newStack(t, cfg, map[string]scriptedmodel.Script{"people": script})
			run := s.start(workflows.AgentInput{Agent: "people-booker", Task: "book a seat"})
			way.opts.Namespace = "default"
			h, err := console.New(serverClient, way.opts)
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			target := srv.URL + "/runs/" + url.PathEscape(run.GetID()) + "/approve"
			call := s.pendingApproval(run)

			class, text := postAnswerAs(t, target, url.Values{"call_id": {call.CallID}, "decision": {"approve"}, "by": {"mallory"}}, way.as)
			require.Equal(t, "rejected", class)
			require.Contains(t, text, "but you are signed in as "+way.who)
			require.Empty(t, tools.requests("/book"), "a refused form runs nothing")

			class, text = postAnswerAs(t, target, url.Values{"call_id": {call.CallID}, "decision": {"approve"}}, way.as)
			require.Equal(t, "ok", class, text)
			_, err = s.result(run)
			require.NoError(t, err)
			require.Len(t, tools.requests("/book"), 1)
			var approval *signals.Node
			for _, n := range s.trace(run).Nodes {
				if n.Kind == signals.KindApproval && len(n.Parents) == 1 && n.Parents[0] == call.CallID {
					approval = &n
				}
			}
			require.NotNil(t, approval, "the call's approval node")
			var req signals.ApproveRequest
			require.NoError(t, json.Unmarshal(approval.Args, &req))
			require.Equal(t, way.who, req.By, "the approver is who the console knows")
		})
	}
}

// postAnswerAs posts an action's form, as prep says who sends it, and
// answers the class and text of its answer.
func postAnswerAs(t *testing.T, target string, form url.Values, prep func(*http.Request)) (string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	prep(req)
	div := findElement(send(t, req), func(n *html.Node) bool { return n.Data == "div" && strings.HasPrefix(attrOf(n, "class"), "answer ") })
	require.NotNil(t, div, "the answer of %s", target)
	return strings.TrimPrefix(attrOf(div, "class"), "answer "), strings.TrimSpace(textOf(div))
}

// The console that knows its people signs their approvals with its own
// key (people.keys.console): a tool whose approval names by: groups
// takes ana's approval from the console, recorded as hers; a console
// without the key, or a person outside the group, is refused and pays
// nothing.
func TestConsoleSignsForThePersonItKnows(t *testing.T) {
	t.Parallel()
	const anaToken, carolToken = "ana-0123456789abcdef", "carol-0123456789abcdef"
	tools, ppl := payServer(t), newPeople(t)
	_, consoleKey, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	cfg := `
model: { base_url: "{{MODEL}}", name: signed }
tools:
  - { name: pay, http: { method: POST, url: "` + tools.URL + `/pay" }, effect: write, approval: { by: [finance] },
      parameters: { type: object, properties: { amount: { type: integer } } } }
agents:
  - { name: payer, instructions: Pay., tools: [pay] }
` + strings.Replace(ppl.yaml(), "  keys: { ", "  keys: { console: "+config.KeyText(consoleKey.Public().(ed25519.PublicKey))+", ", 1)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"signed": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.Reply("paid"),
	)})
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay"})
	call := s.pendingApproval(run).CallID
	consoleOf := func(opts console.Options) string {
		opts.Namespace, opts.People = "default", map[string]string{anaToken: "ana", carolToken: "carol"}
		h, err := console.New(serverClient, opts)
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL + "/runs/" + url.PathEscape(run.GetID()) + "/approve"
	}
	as := func(token string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}
	form := url.Values{"call_id": {call}, "decision": {"approve"}}

	class, text := postAnswerAs(t, consoleOf(console.Options{}), form, as(anaToken))
	require.Equal(t, "rejected", class)
	require.Contains(t, text, `must carry a "signature"`, "without its key the console's approval is not taken")
	signing := consoleOf(console.Options{SigningKey: consoleKey})
	class, text = postAnswerAs(t, signing, form, as(carolToken))
	require.Equal(t, "rejected", class)
	require.Contains(t, text, "carol is not in finance, who answer for pay")
	require.Empty(t, tools.requests("/pay"))

	class, text = postAnswerAs(t, signing, form, as(anaToken))
	require.Equal(t, "ok", class, text)
	_, err = s.result(run)
	require.NoError(t, err)
	require.Len(t, tools.requests("/pay"), 1, "paid once")
	var by []string
	for _, n := range nodesOf(s.trace(run), signals.KindApproval) {
		by = append(by, n.By)
	}
	require.Equal(t, []string{"ana"}, by, "the approval is ana's, signed by the console")
}
