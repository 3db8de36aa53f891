package activities

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
)

// expectPage expects the run to be asked for the page from since,
// answering page.
func (f *modelFixture) expectPage(since int, page ModelContextPage) *gomock.Call {
	return f.querier.EXPECT().
		QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{Since: since}).
		Return(encoded(f.t, page), nil).
		Times(1)
}

// A conversation too large for one query answer comes in pages: the
// activity asks from each next until there is none, and sends the model
// every message once, in order, with the tools of the first page.
func TestCallModelPagesThroughTheModelContext(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	msgs := append(append([]Message(nil), travelConversation.Messages...),
		Message{Role: "assistant", Content: "searching"},
		Message{Role: "user", Content: "go on"},
		Message{Role: "user", Content: "please"})
	gomock.InOrder(
		f.expectPage(0, ModelContextPage{Messages: msgs[:2], Tools: travelConversation.Tools, Next: 2}),
		f.expectPage(2, ModelContextPage{Messages: msgs[2:3], Next: 3}),
		f.expectPage(3, ModelContextPage{Messages: msgs[3:]}),
	)

	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 4, AfterReply: "not-cached", Delta: msgs[4:]})
	require.NoError(t, err)
	reqs := f.srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, []string{
		"system: You are a travel agent.",
		"user: Book NYC to LAX on 2024-01-15",
		"assistant: searching",
		"user: go on",
		"user: please",
	}, sent(reqs[0]))
	require.Len(t, reqs[0].Tools, 1)
	require.Equal(t, "search_flights", reqs[0].Tools[0].Function.Name)
}

// A run of an earlier version ignores the argument and answers the whole
// conversation as a ModelContext (no next): one query, taken as it is.
func TestCallModelTakesAnOldRunsWholeAnswer(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.querier.EXPECT().
		QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{Since: 0}).
		Return(encoded(t, travelConversation), nil). // the type earlier versions answered
		Times(1)

	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 2, AfterReply: "not-cached"})
	require.NoError(t, err)
	reqs := f.srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, []string{"system: You are a travel agent.", "user: Book NYC to LAX on 2024-01-15"}, sent(reqs[0]))
	require.Len(t, reqs[0].Tools, 1)
}

// A page whose next does not follow from it (none of this code's runs
// answers one) fails the request instead of asking forever.
func TestCallModelRefusesAPageThatDoesNotAdvance(t *testing.T) {
	for name, page := range map[string]ModelContextPage{
		"empty page with next": {Next: 1},
		"next behind":          {Messages: travelConversation.Messages, Next: 1},
		"next ahead":           {Messages: travelConversation.Messages, Next: 5},
	} {
		t.Run(name, func(t *testing.T) {
			f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
			f.expectPage(0, page)
			_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: "not-cached"})
			require.ErrorContains(t, err, "the page from message 0 holds")
			require.Zero(t, f.srv.RequestCount())
		})
	}
}

// previousRun is what the run before this one (continue-as-new) left in
// the cache: the travel conversation and a reply, ending with reply
// "r-prev".
func (f *modelFixture) previousRun() ModelContext {
	mc := ModelContext{
		Messages: append(append([]Message(nil), travelConversation.Messages...), Message{Role: "assistant", Content: "searching"}),
		Tools:    travelConversation.Tools,
	}
	f.acts.convos.put(testWorkflowID, "the-previous-run", mc, "r-prev")
	return mc
}

// After continue-as-new the first request finds the previous run's
// conversation (the cache is keyed by workflow id). The new run confirms
// it by digest and answers only the messages from Base on: the whole
// conversation is not read again.
func TestCallModelReusesThePreviousRunsConversation(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	prev := f.previousRun()
	f.querier.EXPECT().
		QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{Since: 3, Digest: true}).
		Return(encoded(t, ModelContextPage{
			Messages: []Message{{Role: "user", Content: "go on"}},
			Digest:   ConversationDigest(prev.Messages, prev.Tools),
		}), nil).
		Times(1)

	first, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: "r-prev",
		Delta: []Message{{Role: "user", Content: "go on"}}})
	require.NoError(t, err)
	reqs := f.srv.Requests()
	require.Equal(t, []string{
		"system: You are a travel agent.",
		"user: Book NYC to LAX on 2024-01-15",
		"assistant: searching",
		"user: go on",
	}, sent(reqs[0]))
	require.Len(t, reqs[0].Tools, 1, "the tools come from the cache")

	// The entry is this run's now: its next request is a plain hit.
	_, err = f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 5, AfterReply: first.ReplyID,
		Delta: []Message{{Role: "user", Content: "thanks"}}})
	require.NoError(t, err)
	require.Len(t, f.srv.Requests()[1].Messages, 6)
}

// A new run whose conversation differs from the cached one although Base
// and AfterReply match (a rollback invalidated earlier steps) answers
// another digest: the activity reads the whole conversation instead.
func TestCallModelRereadsAConversationARollbackChanged(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.previousRun()
	now := ModelContext{Messages: append(append([]Message(nil), travelConversation.Messages...),
		Message{Role: "user", Content: "[graph node a] lookup() returned {}"}, Message{Role: "user", Content: "go on"}),
		Tools: travelConversation.Tools}
	gomock.InOrder(
		f.querier.EXPECT().
			QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{Since: 3, Digest: true}).
			Return(encoded(t, ModelContextPage{Messages: now.Messages[3:], Digest: ConversationDigest(now.Messages[:3], now.Tools)}), nil),
		f.expectPage(0, ModelContextPage{Messages: now.Messages, Tools: now.Tools}),
	)

	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: "r-prev", Delta: now.Messages[3:]})
	require.NoError(t, err)
	require.Equal(t, []string{
		"system: You are a travel agent.",
		"user: Book NYC to LAX on 2024-01-15",
		"user: [graph node a] lookup() returned {}",
		"user: go on",
	}, sent(f.srv.Requests()[0]))
}

// A new run of an earlier version ignores the argument and answers its
// whole conversation without a digest: that answer is taken as it is.
func TestCallModelTakesAnOldNewRunsWholeAnswer(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	f.previousRun()
	whole := ModelContext{Messages: append(append([]Message(nil), travelConversation.Messages...),
		Message{Role: "assistant", Content: "from the run"}, Message{Role: "user", Content: "go on"}), Tools: travelConversation.Tools}
	f.querier.EXPECT().
		QueryWorkflow(gomock.Any(), testWorkflowID, testRunID, signals.QueryModelContext, ModelContextQuery{Since: 3, Digest: true}).
		Return(encoded(t, whole), nil).
		Times(1)

	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel")), Base: 3, AfterReply: "r-prev"})
	require.NoError(t, err)
	require.Equal(t, []string{
		"system: You are a travel agent.",
		"user: Book NYC to LAX on 2024-01-15",
		"assistant: from the run",
		"user: go on",
	}, sent(f.srv.Requests()[0]))
}

// Another run of the workflow id whose request does not follow the cached
// conversation (another Base or reply) is a plain miss.
func TestCallModelAnotherRunsMismatchIsAMiss(t *testing.T) {
	for name, req := range map[string]ModelRequest{
		"other reply": {Base: 3, AfterReply: "r-other"},
		"other base":  {Base: 4, AfterReply: "r-prev"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
			f.previousRun()
			f.expectQuery(travelConversation, 1)
			req.Agent = f.agent(f.model("travel"))
			_, err := f.call(req)
			require.NoError(t, err)
			require.Len(t, f.srv.Requests()[0].Messages, 2, "the run's answer, not the cache")
		})
	}
}
