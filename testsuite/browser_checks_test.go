package testsuite

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A booking the tool says it made, which its read-back finds pending, is
// unverified: the run's page marks the call in the graph, shows the
// read-back as its check, and beside the graph the condition, the value
// the check read, the reason and what the read-back answered (the tool's
// markup as text); the summary
// counts it. The tools are real HTTP servers on loopback.
func TestBrowserConsoleShowsAnUnverifiedCall(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/book_room":
			writeJSON(w, 200, map[string]string{"confirmation": "B-1", "status": "ok"})
		case "/get_booking":
			writeJSON(w, 200, map[string]string{"state": "pending", "room": "12", "note": "<b>held</b>"})
		}
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: console-unverified }
tools:
  - name: book_room
    http: { url: "` + tools.URL + `/book_room" }
    effect: write
    parameters: { type: object, required: [room], properties: { room: { type: string } } }
    verify:
      tool: get_booking
      args: { id: "†result.confirmation" }
      expect: "result.state == 'confirmed'"
  - name: get_booking
    http: { url: "` + tools.URL + `/get_booking" }
    parameters: { type: object, properties: { id: { type: string } } }
agents:
  - { name: console-booker, instructions: Book a room., tools: [book_room] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"console-unverified": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book_room", map[string]any{"room": "12"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"booked": false}),
	)})
	run := s.start(workflows.AgentInput{Agent: "console-booker", Task: "book room 12"})
	_, err := s.result(run)
	require.NoError(t, err)
	book := callsOf(s.trace(run), "book_room")
	require.Len(t, book, 1)
	ck := book[0].Check
	require.NotNil(t, ck, "the call was checked")
	require.False(t, ck.Passed)
	require.NotEmpty(t, ck.ReadBack)
	require.Equal(t, 1, s.status(run).Unverified)

	base := consoleServer(t)
	b.signIn(base)
	node := fmt.Sprintf(`#graph svg g.node[data-node-id=%q]`, book[0].ID)
	entry := fmt.Sprintf(`#checks li.check.unverified[data-node-id=%q]`, book[0].ID)
	b.do("open the run's page",
		chromedp.Navigate(base+"/runs/"+run.GetID()),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="completed"]`)),
		chromedp.WaitVisible(chromedp.CSS(node+`.unverified .check-mark`)),
		chromedp.WaitVisible(chromedp.CSS(entry)))

	require.Equal(t, "1", b.text(`#run-status dd.unverified`), "the summary counts the unverified call")
	require.Equal(t, "✗ unverified", b.svgText(node+` .check-mark`))
	require.Equal(t, ck.ReadBack+" read-back of "+book[0].ID,
		b.svgText(fmt.Sprintf(`#graph svg g.node.read-back[data-node-id=%q] .label`, ck.ReadBack)), "the read-back is the call's check, not the model's call")

	require.Equal(t, "read-back expect: result.state == 'confirmed'", b.text(entry+` .condition-line`))
	require.Equal(t, `result.state = "pending"`, b.text(entry+` ul.seen li`), "the value the check read")
	require.Equal(t, ck.Reason, b.text(entry+` p.reason`))
	readBack := b.text(entry + ` .read-back`)
	require.Contains(t, readBack, "read-back "+ck.ReadBack+" get_booking")
	require.Contains(t, readBack, `"note":"<b>held</b>"`, "what the read-back answered, the tool's markup as text")
	require.Equal(t, 0, b.count(`#checks b`), "no markup from a tool reaches the page")

	// Beside the call: the entry is on screen with the graph, to its right.
	beside := get(b, "compare where the graph and the check are", chromedp.Evaluate[bool](
		`(() => { const g = document.querySelector('#graph').getBoundingClientRect();
		          const c = document.querySelector(`+jsString(entry)+`).getBoundingClientRect();
		          return c.left >= g.right && c.top < g.bottom && c.bottom <= window.innerHeight; })()`))
	require.True(t, beside, "the failed check shows beside the graph, without scrolling")
	b.screenshot("run-unverified")
}

// svgText is the text of the first SVG element matching css, once it is
// visible (an SVG element has no innerText, which chromedp.Text reads).
func (b *browser) svgText(css string) string {
	b.t.Helper()
	b.do("wait for "+css, chromedp.WaitVisible(chromedp.CSS(css)))
	return get(b, "read the text of "+css, chromedp.TextContent(chromedp.CSS(css)))
}
