package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// evalCases is the size of the benchmark's suite.
const evalCases = 50

// evalConfig is the benchmark's agent: it looks its task up on the
// loopback tool server, then answers. {{MODEL}} is the model's URL and
// {{NAME}} its name: evalModel, or loopModel for the candidate that loops.
const evalConfig = `
model: { base_url: "{{MODEL}}", name: {{NAME}} }
tools:
  - { name: lookup, http: { url: "{{TOOLS}}/lookup" }, parameters: { type: object } }
agents:
  - { name: evalbench, instructions: Look the task up and answer., tools: [lookup], policies: { max_steps: 12, escalation: [retry, stop] } }
`

const (
	evalModel = "evalbench"
	loopModel = "evalloop"
)

// evalScript (the scripted model, a test double) looks the task up, then
// ends with the task as its answer.
func evalScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	if len(scriptedmodel.LastToolResults(req)) == 0 {
		return scriptedmodel.CallTurn("lookup", map[string]any{"q": scriptedmodel.Task(req)})
	}
	return scriptedmodel.CallTurn("final_output", map[string]any{"answer": scriptedmodel.Task(req)})
}

// The ladder ends in stop, not a person, so a looping run ends by itself.

// loopScript is a candidate whose model loops on the cases loopsOn
// names: it repeats a lookup the recording does not have (a failing call)
// whatever it is told; on the others it is evalScript.
func loopScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	if loopsOn(scriptedmodel.Task(req)) {
		return scriptedmodel.CallTurn("lookup", map[string]any{"q": "again"})
	}
	return evalScript(req)
}

// loopsOn: the candidate loops on every tenth case, "case 7", "case 17", ...
func loopsOn(task string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(task, "case "))
	return err == nil && n%10 == 7
}

// BenchmarkEval records 50 runs of an agent whose tool is on the loopback
// tool server and replays them with `unstuck eval run`: its wall time at
// --concurrency 1 and 20 against running the same 50 cases live at the
// same concurrency; the same config passes 50/50 with 0 diverged calls;
// a candidate whose model loops is caught, the cases it breaks named and
// the exit status 1.
func BenchmarkEval(b *testing.B) {
	cli := buildBinary(b, "unstuck", "./starter")
	sw := startScripted(b, buildWorker(b), "evalbench", map[string]scriptedmodel.Script{evalModel: evalScript, loopModel: loopScript},
		func(url string) string { return evalYAML(url, evalModel) })
	defer sw.close()

	live1 := liveRuns(b, sw.queue+"-c1", sw.queue, 1)
	dir := b.TempDir()
	exportQueue(b, cli, sw.queue, dir)
	live20 := liveRuns(b, sw.queue+"-c20", sw.queue, 20)

	same := writeConfig(b, evalYAML(sw.model.URL(), evalModel))
	replay1, sc1, _ := evalRun(b, cli, dir, same, 1)
	replay20, sc20, _ := evalRun(b, cli, dir, same, 20)
	for _, sc := range []eval.Scorecard{sc1, sc20} {
		if passed, diverged := tally(sc); passed != evalCases || diverged != 0 {
			b.Fatalf("the same config replayed %d/%d pass with %d diverged calls", passed, evalCases, diverged)
		}
	}
	fmt.Printf("eval suite of %d cases, same config: %d/%d pass, 0 diverged (at 1 and at 20)\n", evalCases, evalCases, evalCases)
	fmt.Printf("--concurrency 1:  replay %.1f s, live %.1f s, replay/live %.2f\n", replay1.Seconds(), live1.Seconds(), replay1.Seconds()/live1.Seconds())
	fmt.Printf("--concurrency 20: replay %.1f s, live %.1f s, replay/live %.2f\n", replay20.Seconds(), live20.Seconds(), replay20.Seconds()/live20.Seconds())

	loop := writeConfig(b, evalYAML(sw.model.URL(), loopModel))
	_, scLoop, code := evalRun(b, cli, dir, loop, 20)
	lost := lostCases(scLoop)
	want := 0
	for i := range evalCases {
		if loopsOn(fmt.Sprintf("case %d", i)) {
			want++
		}
	}
	if code != 1 || len(lost) != want {
		b.Fatalf("the looping candidate: exit %d, lost %v; want exit 1 and %d cases lost", code, lost, want)
	}
	fmt.Printf("looping candidate: exit status %d, %d cases lost: %s\n", code, len(lost), strings.Join(lost, ", "))

	b.ReportMetric(replay1.Seconds()/live1.Seconds(), "replay/live-c1")
	b.ReportMetric(replay20.Seconds()/live20.Seconds(), "replay/live-c20")
}

// evalYAML is evalConfig for the model at url named name.
func evalYAML(url, name string) string {
	return strings.NewReplacer("{{MODEL}}", url, "{{NAME}}", name, "{{TOOLS}}", tools.URL).Replace(evalConfig)
}

// writeConfig writes a config file and answers its path.
func writeConfig(b *testing.B, yaml string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "agents.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// liveRuns runs the suite's tasks ("case 0" to "case 49") for real on
// queue, at most conc at once (workflow ids prefix-i), and answers the
// wall time; a run that does not complete fails the benchmark.
func liveRuns(b *testing.B, prefix, queue string, conc int) time.Duration {
	b.Helper()
	ctx := context.Background()
	slots := make(chan struct{}, conc)
	errs := make([]error, evalCases)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range evalCases {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			in := workflows.AgentInput{Agent: "evalbench", Task: fmt.Sprintf("case %d", i)}
			run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%02d", prefix, i), TaskQueue: queue},
				workflows.WorkflowName, in)
			if err == nil {
				err = run.Get(ctx, nil)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	return took
}

// exportQueue waits until the suite's runs on queue are listed closed, then
// exports them with `unstuck eval export` into dir.
func exportQueue(b *testing.B, cli, queue, dir string) {
	b.Helper()
	query := fmt.Sprintf("TaskQueue = '%s' AND ExecutionStatus = 'Completed'", queue)
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := devClient.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{Query: query})
		if err == nil && n.GetCount() == evalCases {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the %d runs were not listed within a minute (%v, %v)", evalCases, n.GetCount(), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, err := exec.Command(cli, "eval", "export", "--query", query, "--to", dir, "--address", devAddress).CombinedOutput()
	if err != nil {
		b.Fatalf("eval export: %v\n%s", err, out)
	}
}

// evalRun runs `unstuck eval run dir --config cfg --concurrency conc
// --json` and answers its wall time, its scorecard and its exit status.
func evalRun(b *testing.B, cli, dir, cfg string, conc int) (time.Duration, eval.Scorecard, int) {
	b.Helper()
	cmd := exec.Command(cli, "eval", "run", dir, "--config", cfg, "--concurrency", strconv.Itoa(conc), "--json", "--timeout", "2m", "--address", devAddress)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		b.Fatal(err)
	}
	var sc eval.Scorecard
	if err := json.Unmarshal(stdout.Bytes(), &sc); err != nil {
		b.Fatalf("eval run (exit %d): %v\n%s", code, err, stderr.String())
	}
	return took, sc, code
}

// tally is the cases passing pass^k and the diverged calls of a scorecard.
func tally(sc eval.Scorecard) (passed, diverged int) {
	for _, c := range sc.Cases {
		if c.PassK {
			passed++
		}
		diverged += c.Diverged
	}
	return passed, diverged
}

// lostCases names the cases a scorecard lost against their recording.
func lostCases(sc eval.Scorecard) []string {
	var lost []string
	for _, c := range sc.Cases {
		if c.Change == eval.ChangeLost {
			lost = append(lost, c.Case)
		}
	}
	sort.Strings(lost)
	return lost
}
