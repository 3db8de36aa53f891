package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	openai "github.com/sashabaranov/go-openai"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// inboxRuns is the fleet waiting for approval: half free-form, half graph.
const inboxRuns = 1000

// inboxSamples is how often each listing is timed.
const inboxSamples = 20

// BenchmarkInboxFleet (issue 52, item 4): 1,000 runs wait for approval
// of one tool on one worker process (the real binary, default policies),
// half of a free-form agent and half of a graph agent with a tool node.
// Reported: the p50 and p95 of `unstuck inbox` (the real CLI, a process
// each time), of the console's /approvals over HTTP, and of its load in
// headless Chromium; the time `unstuck approve --group` takes to approve
// the group of 1,000; that every run then records its own approval node
// by the approver naming the group; the calls each run made at the tool
// server (0 twice); and the history bytes and events an approval adds to
// a run. A listing reads the calls from the runs' memos (one visibility
// listing). The sides are worker settings (only the default one now).
func BenchmarkInboxFleet(b *testing.B) {
	worker := buildWorker(b)
	cliBin := buildBinary(b, "unstuck", "./starter")
	for range b.N {
		for _, side := range []struct{ name, tuning string }{
			{"default worker", ""},
		} {
			inboxFleet(b, worker, cliBin, side.name, side.tuning)
		}
	}
}

const inboxModel = "inbox"

func inboxConfig(toolURL, tuning string) func(modelURL string) string {
	return func(modelURL string) string {
		return fmt.Sprintf(`
%[4]s
model: { base_url: %[1]q, name: %[2]s }
tools:
  - { name: fleet_pay, http: { method: POST, url: "%[3]s/fleet_pay" }, effect: write, approval: always,
      parameters: { type: object, properties: { amount: { type: integer }, to: { type: string } } } }
  - { name: fleet_paz, http: { method: POST, url: "%[3]s/fleet_paz" }, effect: write,
      parameters: { type: object, properties: { amount: { type: integer }, to: { type: string } } } }
agents:
  - { name: fleet-payer, instructions: Pay., tools: [fleet_pay] }
  - { name: fleet-pazer, instructions: Pay., tools: [fleet_paz] }
  - name: fleet-graph-payer
    instructions: Pay.
    tools: [fleet_pay]
    graph:
      start: P
      nodes:
        P: { tool: fleet_pay, args: { amount: "†input.amount", to: "†input.to" }, output_path: "†state.paid" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: P, to: E } ]
  - name: fleet-graph-pazer
    instructions: Pay.
    tools: [fleet_paz]
    graph:
      start: P
      nodes:
        P: { tool: fleet_paz, args: { amount: "†input.amount", to: "†input.to" }, output_path: "†state.paid" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: P, to: E } ]
`, modelURL, inboxModel, toolURL, tuning)
	}
}

// inboxScript pays once, then says so.
func inboxScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	if scriptedmodel.AssistantTurns(req) == 0 {
		tool := "fleet_pay"
		if len(req.Tools) > 0 && req.Tools[0].Function != nil {
			tool = req.Tools[0].Function.Name // the agent's one tool
		}
		var amount int
		_, _ = fmt.Sscanf(scriptedmodel.Task(req), "pay %d", &amount)
		return scriptedmodel.CallTurn(tool, map[string]any{"amount": amount, "to": "acme"})
	}
	return scriptedmodel.Reply("paid")
}

// payCounter counts the calls each run made (Unstuck-Workflow-Id).
type payCounter struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func startPayCounter() *payCounter {
	p := &payCounter{calls: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.calls[r.Header.Get("Unstuck-Workflow-Id")]++
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"paid": true}`)
	}))
	return p
}

func inboxFleet(b *testing.B, workerBin, cliBin, side, tuning string) {
	b.Helper()
	ctx := context.Background()
	pays := startPayCounter()
	defer pays.Close()
	s := startScripted(b, workerBin, "inbox", map[string]scriptedmodel.Script{inboxModel: inboxScript}, inboxConfig(pays.URL, tuning))
	defer s.close()

	ids := startInboxFleet(b, s)
	waitForWaiting(b, inboxRuns)
	group := approvalinbox.GroupID("fleet_pay", "{amount: number, to: string}")

	// `unstuck inbox`, the real CLI.
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(cliBin, append(args, "--address", devAddress)...)
		cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The runs settle: the worker has just taken 1,000 starts, and a query
	// waits behind their workflow tasks.
	settled := time.Now()
	for {
		began := time.Now()
		out, err := cli("inbox", "--json")
		var in struct {
			Calls  int
			Unread []any
		}
		read := err == nil && json.Unmarshal([]byte(out), &in) == nil
		b.Logf("settling: `unstuck inbox` read %d calls, %d runs unread, in %s", in.Calls, len(in.Unread), time.Since(began).Round(time.Millisecond))
		if read && in.Calls == inboxRuns {
			break
		}
		if time.Since(settled) > 5*time.Minute {
			b.Fatalf("unstuck inbox did not read the %d runs within 5 minutes: %v\n%.3000s", inboxRuns, err, out)
		}
	}
	settleTook := time.Since(settled)
	var cliTimes []time.Duration
	short := 0 // listings that could not read every run in time
	for range inboxSamples {
		began := time.Now()
		out, err := cli("inbox")
		cliTimes = append(cliTimes, time.Since(began))
		if err != nil {
			b.Fatalf("unstuck inbox: %v\n%s", err, out)
		}
		if !strings.Contains(out, fmt.Sprintf("%s  fleet_pay  %d", group, inboxRuns)) {
			short++
		}
	}

	// The console's /approvals over HTTP, then in Chromium.
	h, err := console.New(devClient, console.Options{Namespace: "default"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var pageTimes []time.Duration
	pageShort := 0
	for range inboxSamples {
		began := time.Now()
		body := httpGet(b, srv.URL+"/approvals")
		pageTimes = append(pageTimes, time.Since(began))
		if !strings.Contains(body, fmt.Sprintf(`data-group-id="%s"`, group)) {
			b.Fatalf("/approvals does not show the group:\n%.2000s", body)
		}
		if !strings.Contains(body, fmt.Sprintf(`data-count="%d"`, inboxRuns)) {
			pageShort++
		}
	}
	browserTimes := loadInBrowser(b, srv.URL+"/approvals")

	// The group of 1,000, approved by the real CLI.
	began := time.Now()
	out, err := cli("approve", "--group", group, "--decision", "approve", "--by", "ana")
	approveTook := time.Since(began)
	approveSaid := "?"
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "group "+group) {
			approveSaid = strings.TrimSpace(line)
		}
	}
	if err != nil {
		b.Logf("unstuck approve --group: %v\n%s", err, out)
	}

	checked, wrong := checkApprovedFleet(b, ids, group)
	twice, once := 0, 0
	pays.mu.Lock()
	for _, id := range ids {
		switch n := pays.calls[id]; {
		case n == 1:
			once++
		case n > 1:
			twice++
		}
	}
	pays.mu.Unlock()
	free := approvalAdds(b, s, ids[0], s.queue+"-a", inboxInput(0, "fleet-pazer"))
	graph := approvalAdds(b, s, ids[1], s.queue+"-b", inboxInput(1, "fleet-graph-pazer"))

	b.Logf("%s: %d runs waiting (%d free-form, %d graph), 1 group, all read by `unstuck inbox` %.1f s after the visibility store listed them all: `unstuck inbox` p50 %s p95 %s (%d of %d listings short of a run); /approvals over HTTP p50 %s p95 %s (%d short); in Chromium %s",
		side, inboxRuns, inboxRuns/2, inboxRuns/2, settleTook.Seconds(), pct(cliTimes, 50), pct(cliTimes, 95), short, inboxSamples, pct(pageTimes, 50), pct(pageTimes, 95), pageShort, browserTimes)
	b.Logf("%s: `unstuck approve --group` of %d: %.1f s (%q); %d of %d runs completed with their own approval node by ana naming the group; tool calls: %d runs once, %d twice or more; not right: %q",
		side, inboxRuns, approveTook.Seconds(), approveSaid, checked, inboxRuns, once, twice, wrong)
	b.Logf("%s: an approval adds to a run's history: free-form %d bytes in %d events, graph %d bytes in %d events", side, free.bytes, free.events, graph.bytes, graph.events)
	_ = ctx
}

// inboxInput is run i's input: a free-form agent's task names the
// amount, a graph agent's input holds it.
func inboxInput(i int, agent string) workflows.AgentInput {
	if strings.Contains(agent, "graph") {
		return workflows.AgentInput{Agent: agent, Task: "pay", Input: json.RawMessage(fmt.Sprintf(`{"amount": %d, "to": "acme"}`, i))}
	}
	return workflows.AgentInput{Agent: agent, Task: fmt.Sprintf("pay %d", i)}
}

// startInboxFleet starts the runs, 32 at a time: even ones free-form,
// odd ones of the graph agent.
func startInboxFleet(b *testing.B, s *scriptedWorker) []string {
	b.Helper()
	ids := make([]string, inboxRuns)
	var g errgroup.Group
	g.SetLimit(32)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", s.queue, i)
		agent := "fleet-payer"
		if i%2 == 1 {
			agent = "fleet-graph-payer"
		}
		in := inboxInput(i, agent)
		g.Go(func() error {
			_, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: ids[i], TaskQueue: s.queue}, workflows.WorkflowName, in)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return ids
}

// waitForWaiting waits until the visibility store lists n runs waiting
// for approval.
func waitForWaiting(b *testing.B, n int) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := devClient.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
			Namespace: "default", Query: approvalinbox.Query(approvalinbox.Filter{})})
		if err == nil && resp.GetCount() >= int64(n) {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Fatalf("%d runs did not all wait for approval within 10 minutes", n)
}

func httpGet(b *testing.B, url string) string {
	b.Helper()
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var sb strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return sb.String()
}

// loadInBrowser loads url in headless Chromium inboxSamples times (until
// its groups are shown) and says the p50 and p95, or why it could not.
func loadInBrowser(b *testing.B, url string) string {
	b.Helper()
	bin := os.Getenv("UNSTUCK_CHROMIUM")
	if bin == "" {
		bin, _ = exec.LookPath("chromium")
	}
	if bin == "" {
		return "not measured (no Chromium: set UNSTUCK_CHROMIUM)"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(b.TempDir()))
	root, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		return fmt.Sprintf("not measured (Chromium %s did not start: %v)", bin, err)
	}
	var times []time.Duration
	for range inboxSamples {
		began := time.Now()
		if err := chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible("section.approval-group")); err != nil {
			b.Fatalf("Chromium: load %s: %v", url, err)
		}
		times = append(times, time.Since(began))
	}
	return fmt.Sprintf("p50 %s p95 %s", pct(times, 50), pct(times, 95))
}

// pct is the p-th percentile of ds (nearest rank), to the millisecond.
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)].Round(time.Millisecond)
}

// checkApprovedFleet waits for each run's end and counts those that
// completed with one approval node, by ana, naming the group; it says why
// of the first runs that did not.
func checkApprovedFleet(b *testing.B, ids []string, group string) (int, []string) {
	b.Helper()
	why := make([]string, len(ids))
	var g errgroup.Group
	g.SetLimit(16)
	for i, id := range ids {
		g.Go(func() error {
			why[i] = approvedOnce(id, group)
			return nil
		})
	}
	_ = g.Wait()
	n := 0
	var wrong []string
	for i, w := range why {
		switch {
		case w == "":
			n++
		case len(wrong) < 3:
			wrong = append(wrong, ids[i]+": "+w)
		}
	}
	return n, wrong
}

// approvedOnce says what is wrong with run id's approval, or "".
func approvedOnce(id, group string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := devClient.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		return "the run did not complete: " + err.Error()
	}
	var tr signals.Trace
	v, err := devClient.QueryWorkflow(ctx, id, "", signals.QueryTrace)
	if err == nil {
		err = v.Get(&tr)
	}
	if err != nil {
		return "trace query: " + err.Error()
	}
	var approvals []signals.ApproveRequest
	for _, n := range tr.Nodes {
		var req signals.ApproveRequest
		if n.Kind == signals.KindApproval && json.Unmarshal(n.Args, &req) == nil {
			approvals = append(approvals, req)
		}
	}
	if len(approvals) != 1 || approvals[0].By != "ana" || approvals[0].Reason != "group "+group+" approved by ana" {
		return fmt.Sprintf("approval nodes %+v", approvals)
	}
	return ""
}

type inboxHistory struct{ bytes, events int }

func historyOf(b *testing.B, id string) inboxHistory {
	b.Helper()
	var h inboxHistory
	eachEvent(b, id, "", func(ev *historypb.HistoryEvent) {
		h.bytes += proto.Size(ev)
		h.events++
	})
	return h
}

// approvalAdds is what an approval adds to a run's history: the history
// of approved run id less that of the same run of a tool without approval
// (fleet_paz, of a name as long, on a workflow id as long), started with
// in.
func approvalAdds(b *testing.B, s *scriptedWorker, id, controlID string, in workflows.AgentInput) inboxHistory {
	b.Helper()
	run := s.start(b, controlID, in)
	if err := run.Get(context.Background(), nil); err != nil {
		b.Fatalf("%s: %v", controlID, err)
	}
	with, without := historyOf(b, id), historyOf(b, controlID)
	return inboxHistory{bytes: with.bytes - without.bytes, events: with.events - without.events}
}
