package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

const travelConfig = `
model: { base_url: "{{MODEL}}", name: travel-demo }
tools:
  - name: search_flights
    description: Search flights.
    parameters: { type: object, properties: { from: {type: string}, to: {type: string}, date: {type: string} } }
    builtin: search_flights
  - name: book_flight
    description: Book a flight.
    parameters: { type: object, properties: { flight_id: {type: string}, passengers: {type: integer} } }
    builtin: book_flight
    effect: write
agents:
  - name: travel
    instructions: You are a travel agent.
    tools: [search_flights, book_flight]
`

// The demo story end to end: real server, real worker, real go-openai
// client against the scripted model, built-in tools.
func TestTravelAgentCompletesEndToEnd(t *testing.T) {
	t.Parallel()
	s := newStack(t, travelConfig, scriptedmodel.Scenarios())
	run := s.start(workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15 for me"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.Equal(t, 3, res.Steps)
	var out struct {
		Confirmation string `json:"confirmation"`
		FlightID     string `json:"flight_id"`
	}
	require.NoError(t, json.Unmarshal(res.Output, &out))
	require.True(t, strings.HasPrefix(out.Confirmation, "CONF-"), "output %s", res.Output)
	require.True(t, strings.HasPrefix(out.FlightID, "UA"), "output %s", res.Output)

	tr := s.trace(run)
	var kinds []string
	for _, n := range tr.Nodes {
		kinds = append(kinds, string(n.Kind))
		require.NotEqual(t, signals.StatusFailed, n.Status, "node %s: %s", n.ID, n.Error)
	}
	// The model wrote the date "Jan 15, 2024"; the tool refused it and a
	// rule repaired it (no model request) before the call went again.
	require.Equal(t, []string{"task", "request", "call", "repair", "request", "call", "request", "call", "output"}, kinds)
	require.Contains(t, string(nodesOf(tr, signals.KindRepair)[0].Output), "reformat_date")
	calls := nodesOf(tr, signals.KindCall)
	require.Equal(t, "search_flights", calls[0].Tool)
	require.JSONEq(t, `{"from":"NYC","to":"LAX","date":"2024-01-15"}`, string(calls[0].Args))
	require.Contains(t, string(calls[0].Output), out.FlightID)

	// The model saw the real wire format: tools with _outputPath and the
	// reserved final_output; each later request carries the tool results.
	reqs := s.model.Requests()
	require.Len(t, reqs, 3)
	var toolNames []string
	for _, tool := range reqs[0].Tools {
		toolNames = append(toolNames, tool.Function.Name)
	}
	require.Equal(t, []string{"search_flights", "book_flight", "final_output"}, toolNames)
	require.Contains(t, string(mustMarshal(t, reqs[0].Tools[0].Function.Parameters)), "_outputPath")
	last := reqs[2].Messages
	require.Equal(t, openai.ChatMessageRoleTool, last[len(last)-1].Role)
	require.Equal(t, openai.ChatMessageRoleSystem, last[0].Role)
	require.Len(t, last, 6, "system, user, assistant, tool, assistant, tool")

	recordAndReplay(t, run, "travel_completed")

	st := s.status(run)
	require.Equal(t, signals.PhaseCompleted, st.Phase)
	require.Equal(t, 3, st.Step)

	// The search attributes are kept up to date and listable.
	require.Eventually(t, func() bool {
		resp, err := s.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: "default",
			Query:     fmt.Sprintf("WorkflowId = '%s' AND AgentName = 'travel' AND AgentPhase = 'completed'", run.GetID()),
		})
		return err == nil && len(resp.Executions) == 1
	}, 20*time.Second, 200*time.Millisecond)
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// toolServer is a loopback HTTP tool server that records every request.
type toolServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	Path, Method, IdempotencyKey, WorkflowID, Body, Query string
}

func newToolServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *toolServer {
	ts := &toolServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readAll(r)
		// Handlers read the body again.
		r.Body = io.NopCloser(strings.NewReader(body))
		ts.mu.Lock()
		ts.seen = append(ts.seen, seenRequest{r.URL.Path, r.Method, r.Header.Get("Idempotency-Key"), r.Header.Get("Unstuck-Workflow-Id"), body, r.URL.RawQuery})
		n := 0
		for _, s := range ts.seen {
			if s.Path == r.URL.Path {
				n++
			}
		}
		ts.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *toolServer) requests(path string) []seenRequest {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []seenRequest
	for _, s := range ts.seen {
		if s.Path == path {
			out = append(out, s)
		}
	}
	return out
}

func readAll(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// A run refused at start (unknown agent) fails with a clear error and is
// still listed under the agent it named, as stopped.
func TestUnknownAgentIsRefusedAndListed(t *testing.T) {
	t.Parallel()
	s := newStack(t, travelConfig, scriptedmodel.Scenarios())
	run := s.start(workflows.AgentInput{Agent: "nobody", Task: "anything"})
	_, err := s.result(run)
	require.ErrorContains(t, err, `unknown agent "nobody" (known: travel)`)
	require.Eventually(t, func() bool {
		resp, err := s.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: "default",
			Query:     fmt.Sprintf("WorkflowId = '%s' AND AgentName = 'nobody' AND AgentPhase = 'stopped'", run.GetID()),
		})
		return err == nil && len(resp.Executions) == 1
	}, 20*time.Second, 200*time.Millisecond)
}
