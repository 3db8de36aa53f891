package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Live text (issue 41): how soon a follower reads what the model writes,
// and what a follower keeps across a worker's death and its own
// reconnect. Each conversation's model (a scripted model of its own, a
// test double) writes its reply in liveTextPieces pieces liveTextEvery
// apart, starting with the run's task, so a follower's first text names
// its run; the first piece's time is when the model server flushed it.

const (
	liveTextModel  = "bench-live"
	liveTextPieces = 20
	liveTextEvery  = 100 * time.Millisecond
	// liveFollowEvery is unstuck follow's and the console's default.
	liveFollowEvery = 250 * time.Millisecond
)

// liveTextScript writes the task back, slowly, then more; a turn after a
// reply is a content reply too (the next message's).
func liveTextScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	task := scriptedmodel.Task(req)
	return scriptedmodel.Turn{
		Content:       task + ": " + strings.Repeat("the quick brown fox jumps over the lazy dog ", 8),
		ContentPieces: liveTextPieces, ContentDelay: liveTextEvery,
	}
}

func liveTextConfig(modelURL string) string {
	return fmt.Sprintf(`
model: { base_url: %q, name: %s }
agents:
  - { name: live, instructions: Write., tools: [], conversation: { idle_timeout: 24h } }
`, modelURL, liveTextModel)
}

// BenchmarkLiveText: the time from the model's first streamed token (the
// model server's flush) to a follower's first text event of the reply,
// p50 and p99, with 1 conversation at a time (20 one after another) and
// with 100 at once on one worker process, each with its follower
// (internal/feed on the Temporal client, as unstuck follow and the
// console's events read it, every 250 ms).
func BenchmarkLiveText(b *testing.B) {
	bin := buildWorker(b)
	for i := 0; i < b.N; i++ {
		w := startScripted(b, bin, "live", map[string]scriptedmodel.Script{liveTextModel: liveTextScript}, liveTextConfig)
		var one []float64
		for j := range 20 {
			one = append(one, liveTextLatencies(b, w, fmt.Sprintf("one-%d", j), 1)...)
		}
		many := liveTextLatencies(b, w, "many", 100)
		w.close()
		b.ReportMetric(percentile(one, 50), "one-p50-ms")
		b.ReportMetric(percentile(one, 99), "one-p99-ms")
		b.ReportMetric(percentile(many, 50), "hundred-p50-ms")
		b.ReportMetric(percentile(many, 99), "hundred-p99-ms")
		fmt.Fprintf(os.Stderr, "first token to follower: 1 conversation p50 %.0f ms p99 %.0f ms (%d); 100 at once p50 %.0f ms p99 %.0f ms (%d)\n",
			percentile(one, 50), percentile(one, 99), len(one), percentile(many, 50), percentile(many, 99), len(many))
	}
}

// liveTextLatencies starts n conversations at once, each followed from its
// start, and answers each one's latency (ms) from its model's first token
// to its follower's first text; the runs are ended after.
func liveTextLatencies(b *testing.B, w *scriptedWorker, prefix string, n int) []float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	firstText := make([]time.Time, n)
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s-%s-%d", w.queue, prefix, i)
		startLive(b, ids[i], w.queue, "live")
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx, stop := context.WithCancel(ctx)
			defer stop()
			// A follower comes at any time: its reads are not in step
			// with the model's writing.
			time.Sleep(rand.N(liveFollowEvery))
			src := feed.Run{Client: devClient, WorkflowID: ids[i], QueryTimeout: 30 * time.Second}
			_ = feed.Follow(fctx, src, feed.Cursor{}, liveFollowEvery, func(e feed.Event) error {
				if e.Type == feed.TypeText && e.Text.Delta != "" {
					firstText[i] = time.Now()
					stop()
				}
				return nil
			})
		}()
	}
	wg.Wait()
	var out []float64
	for i, id := range ids {
		_ = devClient.TerminateWorkflow(context.Background(), id, "", "benchmark done")
		first, ok := firstContent(w.model, id)
		if !ok || firstText[i].IsZero() {
			b.Fatalf("%s: the model's first token (%v) or the follower's first text (%v) was never seen", id, ok, !firstText[i].IsZero())
		}
		out = append(out, float64(firstText[i].Sub(first).Microseconds())/1000)
	}
	return out
}

// firstContent is when the model server flushed the first content of the
// reply to run task's first request.
func firstContent(m *scriptedmodel.Server, task string) (time.Time, bool) {
	for n, req := range m.Requests() {
		if scriptedmodel.Task(req) == task {
			return m.FirstContentAt(n + 1)
		}
	}
	return time.Time{}, false
}

// startLive starts a conversation of agent on queue, its task its id.
func startLive(b *testing.B, id, queue, agent string) {
	b.Helper()
	if _, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: queue, TypedSearchAttributes: workflows.StartAttributes(agent)},
		workflows.WorkflowName, workflows.AgentInput{Agent: agent, Task: id}); err != nil {
		b.Fatal(err)
	}
}

// followed is what one follower was told.
type followed struct {
	mu     sync.Mutex
	events []feed.Event
}

func (f *followed) add(e feed.Event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
	return nil
}

func (f *followed) texts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, e := range f.events {
		if e.Type == feed.TypeText {
			n++
		}
	}
	return n
}

// lastID is the id of the last durable event told ("" none).
func (f *followed) lastID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.events) - 1; i >= 0; i-- {
		if f.events[i].ID != "" {
			return f.events[i].ID
		}
	}
	return ""
}

// BenchmarkLiveTextAcrossAWorkerKill: ten conversations, each with a
// follower, are mid-reply when the worker process is SIGKILLed and every
// follower leaves; a new worker takes the runs over (their requests are
// retried after the heartbeat timeout) and each follower comes back after
// the last id it had. Durable events lost (a node whose last state no
// follower was told) and duplicated (an id told twice), over all runs:
// both must be 0.
func BenchmarkLiveTextAcrossAWorkerKill(b *testing.B) {
	const runs = 10
	bin := buildWorker(b)
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{liveTextModel: liveTextScript}, "", scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	cfgPath := writeConfig(b, strings.Replace(liveTextConfig(m.URL()), "idle_timeout: 24h", "idle_timeout: 3s", 1))
	for i := 0; i < b.N; i++ {
		queue := fmt.Sprintf("live-kill-%d", time.Now().UnixNano())
		first := startWorkerProcess(b, bin, cfgPath, queue)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		before := make([]*followed, runs)
		after := make([]*followed, runs)
		ids := make([]string, runs)
		stopBefore := make([]context.CancelFunc, runs)
		for j := range runs {
			ids[j] = fmt.Sprintf("%s-%d", queue, j)
			startLive(b, ids[j], queue, "live")
			before[j] = &followed{}
			fctx, stop := context.WithCancel(ctx)
			stopBefore[j] = stop
			go func() {
				_ = feed.Follow(fctx, feed.Run{Client: devClient, WorkflowID: ids[j], QueryTimeout: 30 * time.Second}, feed.Cursor{}, liveFollowEvery, before[j].add)
			}()
		}
		for j := range runs {
			for before[j].texts() == 0 {
				if ctx.Err() != nil {
					b.Fatalf("%s: its follower read no text", ids[j])
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		_ = first.Process.Kill() // SIGKILL, every reply mid-way
		_ = first.Wait()
		for _, stop := range stopBefore {
			stop()
		}
		second := startWorkerProcess(b, bin, cfgPath, queue)
		var wg sync.WaitGroup
		for j := range runs {
			after[j] = &followed{}
			from, err := feed.ParseID(before[j].lastID())
			if err != nil {
				b.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := feed.Follow(ctx, feed.Run{Client: devClient, WorkflowID: ids[j], QueryTimeout: 30 * time.Second}, from, liveFollowEvery, after[j].add); err != nil {
					b.Errorf("%s: %v", ids[j], err)
				}
			}()
		}
		wg.Wait()
		cancel()
		lost, duplicated := 0, 0
		for j := range runs {
			l, d := keptAcross(b, ids[j], before[j], after[j])
			lost, duplicated = lost+l, duplicated+d
		}
		_ = second.Process.Kill() // after the traces are read: a closed run's query needs a worker
		_ = second.Wait()
		b.ReportMetric(float64(lost), "events-lost")
		b.ReportMetric(float64(duplicated), "events-duplicated")
		fmt.Fprintf(os.Stderr, "across a worker SIGKILL and a reconnect, %d conversations: %d durable events lost, %d duplicated\n", runs, lost, duplicated)
	}
}

// keptAcross counts the durable events of run id lost (a node of its
// trace whose last state neither follower was told) and duplicated (an id
// told twice, phases aside: a follower coming back is told the phase again).
func keptAcross(b *testing.B, id string, before, after *followed) (lost, duplicated int) {
	b.Helper()
	seen := map[string]bool{}
	last := map[string]string{}
	for _, e := range append(before.events, after.events...) {
		if e.ID == "" || e.Type == feed.TypePhase {
			continue
		}
		if seen[e.ID] {
			duplicated++
		}
		seen[e.ID] = true
		if e.Type == feed.TypeNode {
			last[e.Node.ID] = string(e.Node.Status)
		}
	}
	var tr signals.Trace
	if err := query(id, signals.QueryTrace, &tr); err != nil {
		b.Fatalf("%s: trace: %v", id, err)
	}
	for _, n := range tr.Nodes {
		if last[n.ID] != string(n.Status) {
			lost++
		}
	}
	return lost, duplicated
}
