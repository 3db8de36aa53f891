package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// BenchmarkDeadToolFleet: runs of an agent whose model calls a dead tool
// (HTTP 500, one attempt per call) three times, then gives up. Each run's
// own breaker opens after 2 failures, so one run alone costs the tool 2
// calls and, with per-run breakers only, N runs would cost it 2N. The
// worker's breaker is shared by its runs: 100 concurrent runs on one
// worker (fresh, so its breaker starts closed) against one run on another
// fresh worker, side by side in one run. The goal: the 100 runs' calls
// are bounded by the breaker's threshold and the calls in flight when it
// opened, not x100.
func BenchmarkDeadToolFleet(b *testing.B) {
	var hits atomic.Int64
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error": "down"}`))
	}))
	defer dead.Close()
	call := scriptedmodel.CallTurn("dead", map[string]string{"q": "x"})
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{
		"fleet": scriptedmodel.Sequence(call, call, call, scriptedmodel.Reply("gave up")),
	}, "", scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	fleetCfg, err := config.Parse("fleet.yaml", []byte(fmt.Sprintf(`
model: { base_url: %q, name: fleet }
tools:
  - { name: dead, http: { method: POST, url: %q }, retry: { max_attempts: 1 }, parameters: { type: object } }
agents:
  - { name: prober, instructions: Call dead., tools: [dead], policies: { breaker: { failures: 2, cooldown: 1m }, loop: { window: 64, repeats: 10 } } }
`, m.URL(), dead.URL)), app.ConfigOptions())
	if err != nil {
		b.Fatal(err)
	}
	// fleet runs n runs at once on a fresh worker and answers the tool's
	// calls they cost.
	fleet := func(n int) int64 {
		queue := fmt.Sprintf("fleet-%d-%d", n, time.Now().UnixNano())
		w := worker.New(devClient, queue, worker.Options{})
		app.RegisterWorkflow(w)
		w.RegisterActivity(activities.New(fleetCfg, devClient))
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		before := hits.Load()
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := context.Background()
				run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
					ID: fmt.Sprintf("%s-%d", queue, i), TaskQueue: queue, WorkflowExecutionTimeout: 5 * time.Minute,
				}, workflows.WorkflowName, workflows.AgentInput{Agent: "prober", Task: "probe"})
				if err == nil {
					var res workflows.AgentResult
					err = run.Get(ctx, &res)
				}
				if err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		return hits.Load() - before
	}
	var one, hundred int64
	for i := 0; i < b.N; i++ {
		one = fleet(1)
		hundred = fleet(100)
	}
	b.ReportMetric(float64(one), "one-run-tool-calls")
	b.ReportMetric(float64(hundred), "100-runs-tool-calls")
	b.ReportMetric(float64(hundred)/float64(one), "x-one-run")
	b.ReportMetric(float64(100*one), "per-run-breakers-only-calls")
}
