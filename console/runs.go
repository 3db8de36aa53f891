package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// listPageSize is how many runs the list shows: the newest first.
const listPageSize = 100

// runRow is one run of the list.
type runRow struct {
	ID, RunID, Agent, Phase, Status string
	Started                         string
}

// filters are the list's ?agent=&phase=, checked.
type filters struct {
	Agent, Phase string
}

// readFilters checks the filters before they go into a visibility query:
// a phase is one of the phases, an agent a name without quotes or control
// characters (it is quoted into the query).
func readFilters(q url.Values) (filters, error) {
	f := filters{Agent: strings.TrimSpace(q.Get("agent")), Phase: strings.TrimSpace(q.Get("phase"))}
	if f.Phase != "" && !slices.Contains(signals.Phases, signals.Phase(f.Phase)) {
		return f, fmt.Errorf("?phase=%q is not a phase: want one of %s", f.Phase, phaseList())
	}
	if len(f.Agent) > 200 || strings.ContainsFunc(f.Agent, func(r rune) bool {
		return r == '\'' || r == '"' || r == '\\' || r == '`' || unicode.IsControl(r)
	}) {
		return f, fmt.Errorf("?agent=%q is not an agent name (no quotes, backslashes or control characters, at most 200 bytes)", f.Agent)
	}
	return f, nil
}

func phaseList() string {
	names := make([]string, len(signals.Phases))
	for i, p := range signals.Phases {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// visibilityQuery selects the runs of AgentWorkflow matching f.
func visibilityQuery(f filters) string {
	parts := []string{fmt.Sprintf("WorkflowType = '%s'", workflows.WorkflowName)}
	if f.Agent != "" {
		parts = append(parts, fmt.Sprintf("%s = '%s'", signals.AttrAgentName, f.Agent))
	}
	if f.Phase != "" {
		parts = append(parts, fmt.Sprintf("%s = '%s'", signals.AttrAgentPhase, f.Phase))
	}
	return strings.Join(parts, " AND ")
}

// listRuns asks the visibility store for the newest runs matching f.
func (c *Console) listRuns(ctx context.Context, f filters) ([]runRow, error) {
	q := visibilityQuery(f)
	resp, err := c.tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: c.opts.Namespace, PageSize: listPageSize, Query: q,
	})
	if err != nil {
		return nil, fmt.Errorf("list runs (%s) in namespace %q: %w", q, c.opts.Namespace, err)
	}
	now := c.opts.Now()
	rows := make([]runRow, 0, len(resp.GetExecutions()))
	for _, e := range resp.GetExecutions() {
		fields := e.GetSearchAttributes().GetIndexedFields()
		row := runRow{
			ID: e.GetExecution().GetWorkflowId(), RunID: e.GetExecution().GetRunId(),
			Agent: runmsg.Keyword(fields[signals.AttrAgentName]), Phase: runmsg.Keyword(fields[signals.AttrAgentPhase]),
			Status: strings.ToLower(strings.TrimPrefix(e.GetStatus().String(), "WORKFLOW_EXECUTION_STATUS_")),
		}
		if st := e.GetStartTime(); st != nil {
			row.Started = ago(now, st.AsTime())
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ago says how long ago t was, coarsely; a date after two days.
func ago(now, t time.Time) string {
	if now.Sub(t) < 48*time.Hour {
		return waited(now, t) + " ago"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// runsView is the runs list page.
type runsView struct {
	Namespace string
	Filters   filters
	Agents    []string
	Phases    []signals.Phase
	Rows      []runRow
	TableURL  string
	Error     string
}

func (c *Console) runsView(r *http.Request, withAgents bool) (runsView, int) {
	v := runsView{Namespace: c.opts.Namespace, Phases: signals.Phases, TableURL: "/runs-table"}
	f, err := readFilters(r.URL.Query())
	v.Filters = f
	if err != nil {
		v.Error = err.Error()
		return v, http.StatusBadRequest
	}
	q := url.Values{}
	q.Set("agent", f.Agent)
	q.Set("phase", f.Phase)
	v.TableURL += "?" + q.Encode()
	v.Rows, err = c.listRuns(r.Context(), f)
	if err != nil {
		v.Error = err.Error()
		return v, http.StatusBadGateway
	}
	if withAgents {
		v.Agents = c.agentsSeen(r.Context(), f, v.Rows)
	}
	return v, http.StatusOK
}

// agentsSeen are the agents of the newest runs, for the agent filter:
// those of the rows shown, or, when the list is filtered, of an
// unfiltered list. The selected agent is always among them.
func (c *Console) agentsSeen(ctx context.Context, f filters, rows []runRow) []string {
	if f != (filters{}) {
		if all, err := c.listRuns(ctx, filters{}); err == nil {
			rows = append(all, rows...)
		}
	}
	seen := map[string]bool{}
	if f.Agent != "" {
		seen[f.Agent] = true
	}
	for _, row := range rows {
		if row.Agent != "" {
			seen[row.Agent] = true
		}
	}
	agents := make([]string, 0, len(seen))
	for a := range seen {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	return agents
}

// runsPage is GET /: the filters and the table, which refreshes itself.
func (c *Console) runsPage(w http.ResponseWriter, r *http.Request) {
	v, status := c.runsView(r, true)
	c.render(w, status, "runs.html", v)
}

// runsTable is GET /runs-table: the table's rows alone, for the refresh.
func (c *Console) runsTable(w http.ResponseWriter, r *http.Request) {
	v, status := c.runsView(r, false)
	c.render(w, status, "runs-rows", v)
}
