package testsuite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The console over the real dev server and worker: a run waiting for
// approval is listed in phase awaiting_approval, the console's approve
// settles the call (the trace shows it run), and approving the same call
// again shows the run's refusal and changes nothing.
func TestConsoleApprovesARun(t *testing.T) {
	t.Parallel()
	tools := newBookingServer(t, "booked")
	cfg := `
model: { base_url: "{{MODEL}}", name: console }
tools:` + bookToolYAML(tools.URL) + `
agents:
  - { name: console-booker, instructions: Book., tools: [book] }
`
	// Two bookings, each waiting for approval: the second keeps the run open
	// while the first call is approved a second time.
	script := scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
		scriptedmodel.CallTurn("book", map[string]any{"seat": "14C"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"console": script})
	run := s.start(workflows.AgentInput{Agent: "console-booker", Task: "book two seats"})

	h, err := console.New(serverClient, console.Options{Namespace: "default"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	// The list reads the visibility store, which catches up with the run.
	require.Eventually(t, func() bool {
		page := fetch(t, srv.URL+"/?agent=console-booker&phase=awaiting_approval")
		row := findElement(page, func(n *html.Node) bool { return n.Data == "tr" && attrOf(n, "data-workflow-id") == run.GetID() })
		return row != nil && attrOf(row, "data-phase") == "awaiting_approval" && attrOf(row, "data-agent") == "console-booker"
	}, 20*time.Second, 200*time.Millisecond)

	first := s.pendingApproval(run)
	require.JSONEq(t, `{"seat":"12A"}`, string(first.Args))
	runPage := fetch(t, srv.URL+"/runs/"+url.PathEscape(run.GetID()))
	form := findElement(runPage, func(n *html.Node) bool { return n.Data == "form" && attrOf(n, "data-call-id") == first.CallID })
	require.NotNil(t, form, "the run page has a form for the waiting call")

	class, text := postAnswer(t, srv.URL+"/runs/"+url.PathEscape(run.GetID())+"/approve",
		url.Values{"call_id": {first.CallID}, "decision": {"approve"}, "by": {"alice"}})
	require.Equal(t, "ok", class, text)
	require.Equal(t, "call "+first.CallID+" settled (approve)", text)

	// The run goes on to the second booking, which waits in turn.
	var second signals.PendingApproval
	require.Eventually(t, func() bool {
		st := s.status(run)
		if len(st.PendingApprovals) != 1 || st.PendingApprovals[0].CallID == first.CallID {
			return false
		}
		second = st.PendingApprovals[0]
		return true
	}, 20*time.Second, 100*time.Millisecond)

	// The trace on the run page shows the approved call completed, with its
	// approval node.
	live := fetch(t, srv.URL+"/runs/"+url.PathEscape(run.GetID())+"/live")
	call := findElement(live, func(n *html.Node) bool { return n.Data == "g" && attrOf(n, "data-node-id") == first.CallID })
	require.NotNil(t, call)
	require.Equal(t, "call", attrOf(call, "data-kind"))
	require.Equal(t, "completed", attrOf(call, "data-status"))
	require.NotNil(t, findElement(live, func(n *html.Node) bool { return n.Data == "g" && attrOf(n, "data-kind") == "approval" }))
	require.Len(t, tools.requests("/book"), 1, "the approved call ran once")

	// Approving the same call again: the run refuses, nothing changes.
	class, text = postAnswer(t, srv.URL+"/runs/"+url.PathEscape(run.GetID())+"/approve",
		url.Values{"call_id": {first.CallID}, "decision": {"approve"}})
	require.Equal(t, "rejected", class)
	t.Logf("the refusal: %s", text)
	require.Contains(t, text, first.CallID)
	st := s.status(run)
	require.Len(t, st.PendingApprovals, 1)
	require.Equal(t, second.CallID, st.PendingApprovals[0].CallID, "the second call still waits")
	require.Len(t, tools.requests("/book"), 1, "the refused approval ran nothing")

	class, text = postAnswer(t, srv.URL+"/runs/"+url.PathEscape(run.GetID())+"/approve",
		url.Values{"call_id": {second.CallID}, "decision": {"reject"}, "reason": {"one seat is enough"}})
	require.Equal(t, "ok", class, text)
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
}

// fetch GETs a console page and parses it.
func fetch(t *testing.T, target string) *html.Node {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	require.NoError(t, err)
	return send(t, req)
}

// send serves req and parses the page it answers, which must be 200.
func send(t *testing.T, req *http.Request) *html.Node {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	doc, err := html.Parse(strings.NewReader(string(body)))
	require.NoError(t, err)
	return doc
}

// postAnswer posts an action's form as htmx does and answers the class
// (ok or rejected) and text of its answer.
func postAnswer(t *testing.T, target string, form url.Values) (string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	div := findElement(send(t, req), func(n *html.Node) bool { return n.Data == "div" && strings.HasPrefix(attrOf(n, "class"), "answer ") })
	require.NotNil(t, div, "the answer of %s", target)
	return strings.TrimPrefix(attrOf(div, "class"), "answer "), strings.TrimSpace(textOf(div))
}

// findElement is the first element of the page that match accepts.
func findElement(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findElement(c, match); found != nil {
			return found
		}
	}
	return nil
}

// findElements is every element of the page that match accepts.
func findElements(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var found []*html.Node
	if n.Type == html.ElementNode && match(n) {
		found = append(found, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		found = append(found, findElements(c, match)...)
	}
	return found
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}
