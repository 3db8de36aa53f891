package testsuite

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// metricsConfig: the booker whose invalid-arguments loop is repaired
// (bookerLoopConfig, rungs_test.go) and the travel agent of the demo,
// whose date a rule repairs.
const metricsConfig = `
model: { base_url: "{{MODEL}}", name: booker }
tools:
  - { name: book, http: { url: "{{TOOLS}}/book" }, parameters: { type: object } }
  - { name: search_flights, builtin: search_flights, parameters: { type: object, properties: { from: {type: string}, to: {type: string}, date: {type: string} } } }
  - { name: book_flight, builtin: book_flight, effect: write, parameters: { type: object, properties: { flight_id: {type: string}, passengers: {type: integer} } } }
agents:
  - name: booker
    instructions: Book.
    tools: [book]
    policies: { loop: { window: 16, repeats: 3 }, repair: { max_attempts: 1 }, escalation: [retry, explore, stop] }
  - { name: travel, instructions: You are a travel agent., model: { name: travel-demo }, tools: [search_flights, book_flight] }
`

// The real worker binary with --metrics-listen serves, after a run whose
// loop is repaired and a run a rule repairs, the agent's counters with
// the values the runs' traces show, beside the Temporal SDK's metrics.
func TestWorkerServesTheAgentCountersForPrometheus(t *testing.T) {
	t.Parallel()
	model, err := scriptedmodel.Start("127.0.0.1:0", withScript(scriptedmodel.Scenarios(), "booker", loopingBooker()), "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()
	tools := passengersTool(t)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cfg := strings.NewReplacer("{{MODEL}}", model.URL(), "{{TOOLS}}", tools.URL).Replace(metricsConfig)
	queue := startWorkerProcess(t, cfg, "--metrics-listen", addr)
	s := &stack{t: t, model: model, queue: queue, client: serverClient}

	loopRun := s.start(workflows.AgentInput{Agent: "booker", Task: "book UA1"})
	res, err := s.result(loopRun)
	require.NoError(t, err)
	require.Equal(t, "repair", res.Escalations[0].Action)
	loopRepairs := len(nodesOf(s.trace(loopRun), signals.KindRepair))
	require.Positive(t, loopRepairs)

	travelRun := s.start(workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15 for me"})
	_, err = s.result(travelRun)
	require.NoError(t, err)
	travelRepairs := nodesOf(s.trace(travelRun), signals.KindRepair)
	require.Len(t, travelRepairs, 1, "the date repair")
	require.Contains(t, string(travelRepairs[0].Output), `"strategy":"reformat_date"`)

	m := scrape(t, "http://"+addr+"/metrics")
	require.EqualValues(t, 1, m.sum("unstuck_loops_detected_total", "agent", "booker", "task_queue", queue))
	require.EqualValues(t, 1, m.sum("unstuck_rungs_taken_total", "agent", "booker", "rung", "repair"))
	require.EqualValues(t, loopRepairs, m.sum("unstuck_repairs_by_model_total", "agent", "booker"),
		"each model repair of the trace, counted once")
	require.EqualValues(t, 1, m.sum("unstuck_repairs_total", "agent", "travel", "rule", "reformat_date"))
	require.EqualValues(t, 0, m.sum("unstuck_loops_detected_total", "agent", "travel"))
	require.Positive(t, m.sum("unstuck_model_tokens_total", "agent", "travel", "direction", "input"))
	require.Positive(t, m.sum("unstuck_model_tokens_total", "agent", "booker", "direction", "output"))
	// The SDK's own metrics, through the same handler.
	require.EqualValues(t, 2, m.sum("temporal_workflow_completed_total", "workflow_type", workflows.WorkflowName, "task_queue", queue))
	require.Positive(t, m.sum("temporal_activity_execution_latency_seconds_count", "activity_type", "CallModel"))
}

// A --metrics-listen address already in use stops the worker at start,
// naming the flag and the address.
func TestWorkerRefusesAMetricsAddressInUse(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(travelConfig, "{{MODEL}}", "http://127.0.0.1:9/v1")), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "unstuck-worker"), "--config", path, "--metrics-listen", addr)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the worker must exit, not poll:\n%s", out)
	require.NotZero(t, exit.ExitCode())
	require.Contains(t, string(out), "--metrics-listen: cannot serve metrics on "+addr)
	require.Contains(t, string(out), "address already in use")
}

// withScript is scripts with one more.
func withScript(scripts map[string]scriptedmodel.Script, name string, s scriptedmodel.Script) map[string]scriptedmodel.Script {
	scripts[name] = s
	return scripts
}

// promMetrics are the metric families of one scrape.
type promMetrics map[string]*dto.MetricFamily

func scrape(t *testing.T, url string) promMetrics {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	require.NoError(t, err, "the exposition parses:\n%s", body)
	return families
}

// sum adds the samples of a counter (or a histogram's _count) whose labels
// hold every label=value pair given.
func (m promMetrics) sum(name string, labelValues ...string) float64 {
	family, histogramCount := m[name], false
	if family == nil && strings.HasSuffix(name, "_count") {
		family, histogramCount = m[strings.TrimSuffix(name, "_count")], true
	}
	if family == nil {
		return 0
	}
	total := 0.0
	for _, metric := range family.GetMetric() {
		if !hasLabels(metric, labelValues) {
			continue
		}
		switch {
		case histogramCount:
			total += float64(metric.GetHistogram().GetSampleCount())
		default:
			total += metric.GetCounter().GetValue()
		}
	}
	return total
}

func hasLabels(metric *dto.Metric, labelValues []string) bool {
	for i := 0; i+1 < len(labelValues); i += 2 {
		found := false
		for _, l := range metric.GetLabel() {
			if l.GetName() == labelValues[i] && l.GetValue() == labelValues[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
