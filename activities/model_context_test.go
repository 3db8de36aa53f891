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
