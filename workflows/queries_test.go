package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// searchingRun is a finished run of steps model requests, each calling
// search_flights, whose results are result, then a final output.
func searchingRun(t *testing.T, steps int, result json.RawMessage) *harness {
	t.Helper()
	var replies []activities.ModelReply
	for i := range steps {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{
			call(fmt.Sprint("c", i), "search_flights", fmt.Sprintf(`{"from":"NYC","try":%d}`, i)),
		}})
	}
	replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call("cf", "final_output", `{"flight":"UA1"}`)}})
	h := newHarness(t, testSpec(), replies, func(activities.ToolRequest) (json.RawMessage, error) { return result, nil })
	_, err := h.run(AgentInput{Agent: "travel", Task: "Book NYC to LAX"})
	require.NoError(t, err)
	return h
}

// queryTrace asks the trace query with args (none, or one TracePage).
func (h *harness) queryTrace(args ...any) (signals.Trace, error) {
	v, err := h.env.QueryWorkflow(signals.QueryTrace, args...)
	if err != nil {
		return signals.Trace{}, err
	}
	var tr signals.Trace
	require.NoError(h.t, v.Get(&tr))
	return tr, nil
}

// pageAll follows next from the first page (asked without an argument
// when first is nil) to the end, checking each page as it comes.
func (h *harness) pageAll(limit int, first *signals.TracePage) []signals.Node {
	h.t.Helper()
	var nodes []signals.Node
	args := []any{}
	if first != nil {
		args = append(args, first)
	}
	for pages := 0; ; pages++ {
		require.Less(h.t, pages, 1000, "paging does not end")
		tr, err := h.queryTrace(args...)
		require.NoError(h.t, err)
		require.NotEmpty(h.t, tr.Nodes, "a page before the end holds a node")
		if limit > 0 {
			require.LessOrEqual(h.t, len(tr.Nodes), limit)
		}
		nodes = append(nodes, tr.Nodes...)
		if tr.Next == "" {
			return nodes
		}
		require.Equal(h.t, tr.Nodes[len(tr.Nodes)-1].ID, tr.Next, "next is the last node answered")
		args = []any{&signals.TracePage{Since: tr.Next, Limit: limit}}
	}
}

// Without an argument (the Web UI, `temporal workflow query`, earlier
// callers) the trace query answers every node, without next.
func TestTraceQueryWithoutArgumentAnswersEveryNode(t *testing.T) {
	h := searchingRun(t, 3, json.RawMessage(`{"flights":[]}`))
	tr, err := h.queryTrace()
	require.NoError(t, err)
	require.Empty(t, tr.Next)
	require.Equal(t, "task:completed request:completed call:completed request:completed call:completed request:completed call:completed request:completed call:completed output:completed", kinds(tr))

	// As the JSON of a caller that sends null.
	v, err := h.env.QueryWorkflow(signals.QueryTrace, nil)
	require.NoError(t, err)
	var same signals.Trace
	require.NoError(t, v.Get(&same))
	require.Equal(t, tr, same)
}

// With {"since", "limit"} the trace comes in pages: since is exclusive,
// next is the last node of a page while more remain, and the pages put
// together are the whole trace.
func TestTraceQueryPages(t *testing.T) {
	h := searchingRun(t, 3, json.RawMessage(`{"flights":[]}`))
	whole, err := h.queryTrace()
	require.NoError(t, err)
	require.Len(t, whole.Nodes, 10)

	for _, limit := range []int{1, 3, 4, 10} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			require.Equal(t, whole.Nodes, h.pageAll(limit, &signals.TracePage{Limit: limit}))
		})
	}

	first, err := h.queryTrace(signals.TracePage{Limit: 4}) // a value works as well as a pointer
	require.NoError(t, err)
	require.Equal(t, whole.Nodes[:4], first.Nodes)
	require.Equal(t, whole.Nodes[3].ID, first.Next)
	require.Equal(t, whole.Generation, first.Generation)

	after, err := h.queryTrace(&signals.TracePage{Since: whole.Nodes[2].ID, Limit: 2})
	require.NoError(t, err)
	require.Equal(t, whole.Nodes[3:5], after.Nodes, "since is exclusive")
	require.Equal(t, whole.Nodes[4].ID, after.Next)

	// No limit: the default, which holds this whole trace.
	rest, err := h.queryTrace(&signals.TracePage{Since: whole.Nodes[0].ID})
	require.NoError(t, err)
	require.Equal(t, whole.Nodes[1:], rest.Nodes)
	require.Empty(t, rest.Next)

	// The last node: an empty page, nothing next.
	end, err := h.queryTrace(&signals.TracePage{Since: whole.Nodes[9].ID, Limit: 3})
	require.NoError(t, err)
	require.Empty(t, end.Nodes)
	require.NotNil(t, end.Nodes, "nodes is [] as for an empty trace")
	require.Empty(t, end.Next)
}

func TestTraceQueryRefusesABadPage(t *testing.T) {
	h := searchingRun(t, 1, json.RawMessage(`{"flights":[]}`))
	_, err := h.queryTrace(&signals.TracePage{Since: "n99"})
	require.ErrorContains(t, err, `since "n99" names no node of this run`)
	_, err = h.queryTrace(&signals.TracePage{Limit: -1})
	require.ErrorContains(t, err, "limit is -1")
}

// A trace whose JSON is over MaxQueryAnswerBytes is answered in pages
// even without an argument, so a plain query never fails on Temporal's
// size limit; the pages stop before the bound and hold every node.
func TestTraceQueryIsBoundedInBytes(t *testing.T) {
	big := json.RawMessage(`{"flights":"` + strings.Repeat("x", 300<<10) + `"}`)
	h := searchingRun(t, 6, big) // six results of 300 KiB: 1.8 MiB of nodes
	first, err := h.queryTrace()
	require.NoError(t, err)
	require.NotEmpty(t, first.Next, "over the bound: a first page and next")
	b, err := json.Marshal(first)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), signals.MaxQueryAnswerBytes)
	require.Less(t, len(first.Nodes), 14)

	nodes := h.pageAll(0, nil)
	want := make([]string, 16) // the task, a request and a call per step, the final request, call and output
	for i := range want {
		want[i] = fmt.Sprint("n", i+1)
	}
	require.Equal(t, want, ids(nodes), "every node once, in order")
	require.True(t, equalNodes(first.Nodes, nodes[:len(first.Nodes)]))
	// With an argument too.
	require.True(t, equalNodes(nodes, h.pageAll(signals.MaxTracePageLimit, &signals.TracePage{Limit: 100000})))
}

// queryContext asks the model context query with args.
func (h *harness) queryContext(args ...any) (activities.ModelContextPage, error) {
	v, err := h.env.QueryWorkflow(signals.QueryModelContext, args...)
	if err != nil {
		return activities.ModelContextPage{}, err
	}
	var p activities.ModelContextPage
	require.NoError(h.t, v.Get(&p))
	return p, nil
}

// Without an argument the model context is the whole conversation, as a
// model activity of an earlier version expects; with one it comes in
// pages, the tools with the first.
func TestModelContextQueryPages(t *testing.T) {
	h := searchingRun(t, 3, json.RawMessage(`{"flights":[]}`))
	whole, err := h.queryContext()
	require.NoError(t, err)
	require.Zero(t, whole.Next)
	require.Len(t, whole.Messages, 10, "system, task, then a reply and a tool message per step, the final reply and its tool message")
	require.NotEmpty(t, whole.Tools)

	var msgs []activities.Message
	since := 0
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20)
		p, err := h.queryContext(&activities.ModelContextQuery{Since: since, Limit: 3})
		require.NoError(t, err)
		require.LessOrEqual(t, len(p.Messages), 3)
		if since == 0 {
			require.Equal(t, whole.Tools, p.Tools)
		} else {
			require.Empty(t, p.Tools, "the tools come once")
		}
		msgs = append(msgs, p.Messages...)
		if p.Next == 0 {
			break
		}
		require.Equal(t, since+len(p.Messages), p.Next, "next is the index to ask from")
		since = p.Next
	}
	require.Equal(t, whole.Messages, msgs)

	all, err := h.queryContext(&activities.ModelContextQuery{})
	require.NoError(t, err)
	require.Equal(t, whole, all, "no limit: what fits, here everything")

	// The digest of what precedes a page, for a model activity that holds
	// a conversation cached from an earlier run of the workflow id.
	p, err := h.queryContext(&activities.ModelContextQuery{Since: 6, Digest: true})
	require.NoError(t, err)
	require.Equal(t, whole.Messages[6:], p.Messages)
	require.Equal(t, activities.ConversationDigest(whole.Messages[:6], whole.Tools), p.Digest)
	require.NotEqual(t, activities.ConversationDigest(whole.Messages[:5], whole.Tools), p.Digest)
	require.Empty(t, whole.Digest, "only when asked")

	_, err = h.queryContext(&activities.ModelContextQuery{Since: 11})
	require.ErrorContains(t, err, "since 11 is outside the conversation (0 to 10)")
	_, err = h.queryContext(&activities.ModelContextQuery{Since: -1})
	require.ErrorContains(t, err, "since -1")
}

// talkativeRun is a run whose conversation holds replies of size bytes each.
func talkativeRun(replies, size int) *Run {
	run := &Run{Input: AgentInput{Agent: "travel", Task: "Book"}, Spec: testSpec()}
	run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted}})
	for i := range replies {
		out := mustJSON(replyRecord{Content: strings.Repeat(string(rune('a'+i%26)), size)})
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: fmt.Sprint("n", i+2), Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: out}})
	}
	return run
}

// The model context's pages stay under MaxQueryAnswerBytes and hold at
// least one message, even one over the bound alone.
func TestModelContextPagesAreBoundedInBytes(t *testing.T) {
	run := talkativeRun(10, 300<<10) // 3 MiB of messages
	whole := buildConversation(run)
	var got []activities.Message
	since, pages := 0, 0
	for ; ; pages++ {
		require.Less(t, pages, 20)
		p, err := modelContextPage(run, &activities.ModelContextQuery{Since: since})
		require.NoError(t, err)
		require.NotEmpty(t, p.Messages)
		require.LessOrEqual(t, len(mustJSON(p)), signals.MaxQueryAnswerBytes)
		got = append(got, p.Messages...)
		if p.Next == 0 {
			break
		}
		since = p.Next
	}
	require.Equal(t, whole, got)
	require.GreaterOrEqual(t, pages, 3)

	huge := talkativeRun(3, signals.MaxQueryAnswerBytes+10)
	p, err := modelContextPage(huge, &activities.ModelContextQuery{Since: 2})
	require.NoError(t, err)
	require.Len(t, p.Messages, 1, "a message over the bound goes alone")
	require.Equal(t, 3, p.Next)

	// Without an argument: everything, however large (an earlier model
	// activity would take a page for the whole conversation).
	p, err = modelContextPage(run, nil)
	require.NoError(t, err)
	require.Equal(t, whole, p.Messages)
	require.Zero(t, p.Next)
}

// The trace's limit is capped, and a node over the bound goes alone.
func TestTracePageLimitIsCapped(t *testing.T) {
	run := &Run{Spec: testSpec()}
	for i := range signals.MaxTracePageLimit + 10 {
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: fmt.Sprint("n", i+1), Kind: signals.KindCall, Status: signals.StatusCompleted}})
	}
	tr, err := tracePage(run, &signals.TracePage{Limit: 1 << 30})
	require.NoError(t, err)
	require.Len(t, tr.Nodes, signals.MaxTracePageLimit)
	require.Equal(t, fmt.Sprint("n", signals.MaxTracePageLimit), tr.Next)

	tr, err = tracePage(run, nil)
	require.NoError(t, err)
	require.Len(t, tr.Nodes, len(run.Nodes), "without an argument no count limit, only the bound")

	// Nodes over the bound each go alone; the page before one stops short.
	big := talkativeRun(3, signals.MaxQueryAnswerBytes)
	for _, want := range []struct{ since, ids, next string }{
		{"", "n1", "n1"},
		{"n1", "n2", "n2"},
		{"n2", "n3", "n3"},
		{"n3", "n4", ""},
	} {
		var page *signals.TracePage
		if want.since != "" {
			page = &signals.TracePage{Since: want.since}
		}
		tr, err := tracePage(big, page)
		require.NoError(t, err)
		require.Equal(t, want.ids, strings.Join(ids(tr.Nodes), " "), "since %q", want.since)
		require.Equal(t, want.next, tr.Next)
	}
}

func ids(nodes []signals.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

// equalNodes compares nodes without printing megabytes when they differ.
func equalNodes(a, b []signals.Node) bool {
	return string(mustJSON(a)) == string(mustJSON(b))
}

// The trace query's changed_after keeps the nodes added or changed after
// a time, in trace order: a call's node changes when it starts and when it
// settles, so one that settled later than it was added is read again.
func TestTraceChangedAfterAnswersWhatChangedSince(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"to":"PAR"}`)}},
		{Content: "done"},
	}, okTool)
	h.modelTakes = time.Minute
	_, err := h.run(AgentInput{Agent: "travel", Task: "find a flight"})
	require.NoError(t, err)
	all := h.trace().Nodes
	require.GreaterOrEqual(t, len(all), 4)
	since := all[1].At // the first request, settled with its reply
	tr, err := h.queryTrace(signals.TracePage{ChangedAfter: &since})
	require.NoError(t, err)
	var want []string
	for _, n := range all {
		if n.At.After(since) {
			want = append(want, n.ID)
		}
	}
	var got []string
	for _, n := range tr.Nodes {
		got = append(got, n.ID)
	}
	require.NotEmpty(t, want)
	require.Less(t, len(want), len(all), "what did not change since is left out")
	require.Equal(t, want, got)

	last := all[len(all)-1].At
	tr, err = h.queryTrace(signals.TracePage{ChangedAfter: &last})
	require.NoError(t, err)
	require.Empty(t, tr.Nodes, "nothing changed after the last change")
}
