package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// chargeConfig: charge answers 401 (fatal: the account's key is refused);
// its fallback charge_backup works. {{BACKUP}} is the backup's provider.
const chargeConfig = `
model: { base_url: "{{MODEL}}", name: payer }
tools:
  - { name: charge, provider: stripe, fallback: charge_backup, http: { url: "{{TOOLS}}/charge" }, parameters: { type: object } }
  - { name: charge_backup, provider: {{BACKUP}}, http: { url: "{{TOOLS}}/backup" }, parameters: { type: object } }
agents:
  - name: payer
    instructions: Charge the customer.
    tools: [charge]
    policies: { loop: { window: 16, repeats: 3 }, breaker: { failures: 50 }, escalation: [retry, substitute, stop] }
`

// A fatal error (401) is not waited out and not handed to a fallback of the
// same provider; a fallback of another provider stands in, and the call it
// served names both tools in the trace and counts in status.
func TestFatalErrorSubstitutesOnlyAnotherProvider(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		backup   string
		rungs    []string
		backups  int
		fallback int
	}{
		{backup: "adyen", rungs: []string{"substitute"}, backups: 1, fallback: 1},
		{backup: "stripe", rungs: []string{"stop"}},
	} {
		t.Run("backup by "+tc.backup, func(t *testing.T) {
			tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if r.URL.Path == "/backup" {
					writeJSON(w, 200, map[string]string{"charged": "by backup"})
					return
				}
				writeJSON(w, 401, map[string]string{"error": "invalid API key"})
			})
			// The scripted model (a test double) charges until a charge
			// succeeds, then answers.
			payer := func(req openaiRequest) scriptedmodel.Turn {
				if res := scriptedmodel.LastToolResults(req); len(res) == 1 && !res[0].IsError() {
					return scriptedmodel.Turn{Content: "charged"}
				}
				return scriptedmodel.CallTurn("charge", map[string]any{"amount": 12})
			}
			cfg := strings.NewReplacer("{{TOOLS}}", tools.URL, "{{BACKUP}}", tc.backup).Replace(chargeConfig)
			s := newStack(t, cfg, map[string]scriptedmodel.Script{"payer": payer})
			run := s.start(workflows.AgentInput{Agent: "payer", Task: "charge 12"})
			res, err := s.result(run)
			var escalations []workflows.Escalation
			if tc.backups > 0 {
				require.NoError(t, err)
				require.JSONEq(t, `"charged"`, string(res.Output))
				escalations = res.Escalations
			} else {
				escalations = stoppedReport(t, err).Escalations
			}
			var rungs []string
			for _, e := range escalations {
				rungs = append(rungs, e.Action)
			}
			require.Equal(t, tc.rungs, rungs, "no retry of a fatal error")
			require.Len(t, tools.requests("/charge"), 3, "one attempt per call: a fatal error is not retried")
			require.Len(t, tools.requests("/backup"), tc.backups)

			calls := nodesOf(s.trace(run), signals.KindCall)
			served := 0
			for _, c := range calls {
				if c.FallbackOf != "" {
					served++
					require.Equal(t, "charge_backup", c.Tool, "the tool that ran")
					require.Equal(t, "charge", c.FallbackOf, "the tool asked for")
				} else {
					require.Equal(t, "charge", c.Tool)
				}
			}
			require.Equal(t, tc.fallback, served)
			require.Equal(t, tc.fallback, s.status(run).Fallbacks)
			recordAndReplay(t, run, "fatal_substitute_"+tc.backup)
		})
	}
}

// passengersTool is a booking API that refuses a booking without
// passengers (422, invalid arguments).
func passengersTool(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		if _, ok := a["passengers"]; !ok {
			writeJSON(w, 422, map[string]string{"error": "missing required parameter 'passengers'"})
			return
		}
		writeJSON(w, 200, map[string]any{"confirmation": "CONF-7"})
	})
}

// bookerLoopConfig: the booker's book tool is passengersTool ({{TOOLS}}).
const bookerLoopConfig = `
model: { base_url: "{{MODEL}}", name: booker }
tools:
  - { name: book, http: { url: "{{TOOLS}}/book" }, parameters: { type: object } }
agents:
  - name: booker
    instructions: Book.
    tools: [book]
    policies: { loop: { window: 16, repeats: 3 }, repair: { max_attempts: 1 }, escalation: [retry, explore, stop] }
`

// loopingBooker is the scripted model (a test double) of bookerLoopConfig:
// its first three repairs give the arguments back unchanged; the
// escalation's repair adds passengers. In conversation it repeats its call
// (without passengers) until told the repaired one.
func loopingBooker() scriptedmodel.Script {
	var repairs atomic.Int64
	return func(req openaiRequest) scriptedmodel.Turn {
		if isRepair(req) {
			args := map[string]any{"flight": "UA1"}
			if repairs.Add(1) > 3 {
				args["passengers"] = 1
			}
			return scriptedmodel.CallTurn("book", args)
		}
		if res := scriptedmodel.LastToolResults(req); len(res) == 1 && !res[0].IsError() {
			return scriptedmodel.Turn{Content: "booked"}
		}
		for _, m := range req.Messages {
			if m.Role == "user" && strings.Contains(m.Content, "Repaired arguments") {
				return scriptedmodel.CallTurn("book", map[string]any{"flight": "UA1", "passengers": 1})
			}
		}
		return scriptedmodel.CallTurn("book", map[string]any{"flight": "UA1"})
	}
}

// A loop of calls the tool refuses as invalid arguments goes to repair
// first: the escalation repairs the refused call (one focused model
// request), blocks it, and gives the model the repaired call, which
// succeeds. The pipeline's own repair of each refusal found nothing.
func TestInvalidArgumentsLoopIsRepairedFirst(t *testing.T) {
	t.Parallel()
	tools := passengersTool(t)
	cfg := strings.ReplaceAll(bookerLoopConfig, "{{TOOLS}}", tools.URL)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"booker": loopingBooker()})
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "book UA1"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `"booked"`, string(res.Output))
	require.Len(t, res.Escalations, 1)
	require.Equal(t, "repair", res.Escalations[0].Action, "repair before retry, which waiting cannot make right")
	require.Len(t, tools.requests("/book"), 4, "three refused calls, then the repaired one")

	tr := s.trace(run)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Contains(t, string(esc[0].Output), "Repaired arguments")
	var fromEscalation []signals.Node
	for _, n := range nodesOf(tr, signals.KindRepair) {
		if len(n.Parents) == 1 && n.Parents[0] == esc[0].ID {
			fromEscalation = append(fromEscalation, n)
		}
	}
	require.Len(t, fromEscalation, 1, "the escalation's own repair is in the trace")
	recordAndReplay(t, run, "invalid_args_repaired_first")
	// The same run recorded again since its model repair is counted in the
	// spend (version repair-spend): the history above stays as first recorded.
	require.Positive(t, s.status(run).Spend.ModelRequests)
	recordAndReplay(t, run, "model_repair_spent")
}
