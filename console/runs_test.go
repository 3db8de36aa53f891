package console

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
)

func TestRunsListFiltersBuildTheVisibilityQuery(t *testing.T) {
	tests := []struct {
		name, target, query string
	}{
		{"no filter", "/", "WorkflowType = 'AgentWorkflow'"},
		{"agent", "/?agent=travel&phase=", "WorkflowType = 'AgentWorkflow' AND AgentName = 'travel'"},
		{"phase", "/?phase=awaiting_approval", "WorkflowType = 'AgentWorkflow' AND AgentPhase = 'awaiting_approval'"},
		{"both", "/runs-table?agent=travel&phase=completed", "WorkflowType = 'AgentWorkflow' AND AgentName = 'travel' AND AgentPhase = 'completed'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, h := newTestConsole(t, "")
			var queries []string
			m.On("ListWorkflow", anyCtx, mock.Anything).Run(func(args mock.Arguments) {
				req := args.Get(1).(*workflowservice.ListWorkflowExecutionsRequest)
				require.Equal(t, "default", req.Namespace)
				queries = append(queries, req.Query)
			}).Return(&workflowservice.ListWorkflowExecutionsResponse{}, nil)
			w := get(h, tt.target)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			require.Equal(t, tt.query, queries[0], "the list's own query comes first")
		})
	}
}

func TestRunsListRowsAndFilters(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == "WorkflowType = 'AgentWorkflow' AND AgentPhase = 'awaiting_approval'"
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: []*workflowpb.WorkflowExecutionInfo{
		execution(t, "travel-1", "travel", "awaiting_approval"),
	}}, nil).Once()
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == "WorkflowType = 'AgentWorkflow'"
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: []*workflowpb.WorkflowExecutionInfo{
		execution(t, "travel-1", "travel", "awaiting_approval"),
		execution(t, "support-1", "support", "completed"),
	}}, nil).Once()

	w := get(h, "/?phase=awaiting_approval")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := parse(t, w.Body.String())
	filters := page.one(t, "form", "id", "filters")
	var agents []string
	for _, o := range filters.one(t, "select", "name", "agent").all("option") {
		agents = append(agents, o.attr("value"))
	}
	require.Equal(t, []string{"", "support", "travel"}, agents, "all, then each agent seen")
	var phases []string
	for _, o := range filters.one(t, "select", "name", "phase").all("option") {
		phases = append(phases, o.attr("value"))
	}
	require.Equal(t, []string{"", "running", "awaiting_approval", "awaiting_human", "awaiting_user", "waiting_outage", "completed", "stopped"}, phases)

	table := page.one(t, "table", "id", "runs")
	body := table.one(t, "tbody")
	require.Equal(t, "/runs-table?agent=&phase=awaiting_approval", body.attr("hx-get"))
	require.Equal(t, "every 2s", body.attr("hx-trigger"))
	row := table.one(t, "tr", "class", "run")
	require.Equal(t, "travel-1", row.attr("data-workflow-id"))
	require.Equal(t, "awaiting_approval", row.attr("data-phase"))
	require.Equal(t, "travel", row.attr("data-agent"))
	link := row.one(t, "a", "class", "run-link")
	require.Equal(t, "/runs/travel-1", link.attr("href"))
	require.Equal(t, "travel-1", link.text())
	require.Contains(t, row.text(), "5m ago")
	nav := page.one(t, "nav")
	nav.one(t, "a", "href", "/")
	nav.one(t, "a", "href", "/inbox")
}

func TestRunsListRefusesABadFilter(t *testing.T) {
	_, h := newTestConsole(t, "") // no ListWorkflow expected: nothing is asked
	w := get(h, "/runs-table?phase=paused")
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, w.Body.String(), `?phase=&#34;paused&#34; is not a phase`)
	w = get(h, "/?agent=x'%20OR%20'1'='1")
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, w.Body.String(), "is not an agent name")
}
