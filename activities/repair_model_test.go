package activities

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/config"
)

// chatServer answers every chat request with one call of tool "t" and
// usage (none when prompt and completion are 0).
func chatServer(t *testing.T, prompt, completion int) *toolServer {
	usage := ""
	if prompt > 0 || completion > 0 {
		usage = fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d}`, prompt, completion)
	}
	return newToolServer(t, answer(http.StatusOK, `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant",`+
		`"tool_calls":[{"id":"x","type":"function","function":{"name":"t","arguments":"{\"n\":3}"}}]},"finish_reason":"tool_calls"}]`+usage+`}`,
		"Content-Type", "application/json"))
}

// chatAgent is an activity set whose agent "a" talks to srv: gpt-4o, then
// its fallback small.
func chatAgent(t *testing.T, srv *toolServer) (*Activities, *testsuite.TestActivityEnvironment) {
	acts := newTestActivities()
	m := config.Model{BaseURL: srv.URL + "/v1", Name: "gpt-4o", Fallbacks: []config.ModelFallback{{Name: "small"}}}
	acts.config.Agents = []config.Agent{{Name: "a", Model: &m}}
	return acts, newActivityEnv(t, acts)
}

func repairArgs(t *testing.T, srv *toolServer, req RepairRequest) (json.RawMessage, error) {
	t.Helper()
	acts, env := chatAgent(t, srv)
	req.Agent, req.Tool, req.Args = "a", ToolDef{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}, json.RawMessage(`{"n":"three"}`)
	val, err := env.ExecuteActivity(acts.RepairArgs, req)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	require.NoError(t, val.Get(&out))
	return out, nil
}

// A run that asks for the usage gets the provider's, or this worker's
// count where it reported none; a run recorded before gets the arguments
// alone.
func TestRepairArgsAnswersItsUsage(t *testing.T) {
	out, err := repairArgs(t, chatServer(t, 120, 7), RepairRequest{WithUsage: true})
	require.NoError(t, err)
	var reply RepairReply
	require.NoError(t, json.Unmarshal(out, &reply))
	require.Equal(t, RepairReply{Args: json.RawMessage(`{"n":3}`), InputTokens: 120, OutputTokens: 7}, reply)

	out, err = repairArgs(t, chatServer(t, 0, 0), RepairRequest{WithUsage: true})
	require.NoError(t, err)
	reply = RepairReply{}
	require.NoError(t, json.Unmarshal(out, &reply))
	require.True(t, reply.Estimated)
	require.Positive(t, reply.InputTokens)
	require.Positive(t, reply.OutputTokens)

	out, err = repairArgs(t, chatServer(t, 120, 7), RepairRequest{})
	require.NoError(t, err)
	require.JSONEq(t, `{"n":3}`, string(out))
}

// A prompt counted over what the run's budget leaves is not sent.
func TestRepairArgsOverTheBudgetIsNotSent(t *testing.T) {
	srv := chatServer(t, 120, 7)
	_, err := repairArgs(t, srv, RepairRequest{WithUsage: true, SpendTokens: 5})
	ae := requireClass(t, err, RepairOverSpendError, false)
	require.Contains(t, ae.Message(), "over the 5 the run's budget leaves: not sent")
	require.Empty(t, srv.requests())
}

// The repair and the summary go to the model the run asks now (a
// fallback once it fell back): the one whose price the run counts.
func TestRepairAndSummaryGoToTheModelTheRunAsks(t *testing.T) {
	srv := chatServer(t, 120, 7)
	_, err := repairArgs(t, srv, RepairRequest{Fallback: 1})
	require.NoError(t, err)
	require.Contains(t, srv.requests()[0].Body, `"model":"small"`)

	acts, env := chatAgent(t, srv)
	_, err = env.ExecuteActivity(acts.Summarize, SummaryRequest{Agent: "a", Messages: []Message{{Role: "user", Content: "hi"}}, Fallback: 1})
	require.Error(t, err, "the server answers a call, no summary text")
	require.Contains(t, srv.requests()[1].Body, `"model":"small"`)

	_, err = env.ExecuteActivity(acts.Summarize, SummaryRequest{Agent: "a", Fallback: 2})
	requireClass(t, err, ModelRejectedError, false)
}
