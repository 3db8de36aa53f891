package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

//go:embed demo_agents.yaml
var demoConfig []byte

const demoTask = "Book NYC to LAX on 2024-01-15 for me"

type demoOptions struct {
	temporal string
	worker   string
	dataDir  string
	port     int
	uiPort   int
	// consolePort is where the demo serves the console.
	consolePort int
	once        bool
	// deployment is the worker deployment the demo's worker is a version
	// of ("": unversioned).
	deployment string
	// dial connects the messages a scenario sends (as `unstuck edit`
	// does); nil is dialTemporal. Tests hand out a fake.
	dial dialFunc
	// in is what the person types (demo chat); by, who they are.
	in io.Reader
	by string
}

func newDemoCmd() *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:   "demo [edit|handoff|chat]",
		Short: "Run the demo travel agent (demo edit, demo handoff, demo chat: the other scenarios) end to end on a local Temporal dev server",
		Long: `demo starts everything the demo needs on this machine, on loopback only:
  - a Temporal dev server (the Temporal CLI, history in a SQLite file under --data,
    search attributes AgentName and AgentPhase registered) with its Web UI,
  - the scripted model server, a TEST DOUBLE that speaks the OpenAI chat-completions
    wire format (unless OPENAI_BASE_URL is set: then that real endpoint is used, with
    OPENAI_API_KEY and the model named by UNSTUCK_DEMO_MODEL),
  - the unstuck worker (--worker) with the demo config,
then runs the travel agent on "` + demoTask + `", shows each trace node as it
happens, prints the trace and the Web UI link, and keeps everything running until
Ctrl-C so you can look around (unstuck status/trace, temporal workflow list, the UI).

Scenarios:
  unstuck demo        the travel agent, as above
  unstuck demo edit   a stock analyst whose first thought is wrong
                      ("` + scriptedmodel.StockThought + `"): the demo edits
                      that thought with the edit message, shows what the edit
                      invalidated and the run's next generation, approves the
                      report the run then writes, and shows the final answer
                      following the edit. Always on the scripted model; see
                      "unstuck demo edit --help".
  unstuck demo handoff
                      a customer-service chain: general -> orders -> refunds
                      -> a person (the supervisor), each handoff printed as it
                      happens (from, to, reason, the candidates refused and
                      why, the AgentName the run is listed under); then the
                      demo replies as the person and prints the result with
                      its handoff_path. Always on the scripted model; see
                      "unstuck demo handoff --help".
  unstuck demo chat   a conversation: you chat with a hotel concierge in the
                      terminal, as with "unstuck chat" (--once: the demo
                      types a short exchange itself, a message sent while
                      the agent works included). Always on the scripted
                      model; see "unstuck demo chat --help".`,
		Example: `  make demo
  bin/unstuck demo --temporal bin/temporal --worker bin/unstuck-worker
  bin/unstuck demo --once --port 7300 --ui-port 8300 --data /tmp/demo   # exit after the run
  bin/unstuck demo edit --temporal bin/temporal --worker bin/unstuck-worker --once
  bin/unstuck demo handoff --temporal bin/temporal --worker bin/unstuck-worker --once
  bin/unstuck demo chat --temporal bin/temporal --worker bin/unstuck-worker`,
		Args: demoScenarioArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), o, travelScenario)
		},
	}
	// Persistent: the scenarios (demo edit) take the same flags.
	f := cmd.PersistentFlags()
	f.StringVar(&o.temporal, "temporal", "bin/temporal", "Temporal CLI binary (make demo installs v1.5.1 there)")
	f.StringVar(&o.worker, "worker", defaultWorkerPath(), "unstuck-worker binary")
	f.StringVar(&o.dataDir, "data", ".data", "directory for the server's SQLite file, logs and the demo lock")
	f.IntVar(&o.port, "port", 7233, "Temporal frontend port on 127.0.0.1")
	f.IntVar(&o.uiPort, "ui-port", 8233, "Temporal Web UI port on 127.0.0.1")
	f.IntVar(&o.consolePort, "console-port", 8234, "console (unstuck console) port on 127.0.0.1")
	f.BoolVar(&o.once, "once", false, "stop everything after the demo run instead of waiting for Ctrl-C")
	f.StringVar(&o.deployment, "deployment-name", "unstuck", "worker deployment the demo's worker is a version of (Worker Versioning: each run stays on the build that started it); the demo makes its worker's build current. Empty: an unversioned worker")
	cmd.AddCommand(newDemoEditCmd(&o), newDemoHandoffCmd(&o), newDemoChatCmd(&o))
	return cmd
}

// demoScenarioArgs refuses an argument that names no scenario, listing
// the ones there are.
func demoScenarioArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s: unknown scenario %q: run `unstuck demo` (the travel agent), `unstuck demo edit` (editing a run), `unstuck demo handoff` (handing a run on) or `unstuck demo chat` (a conversation)",
			cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

// demoScenario is what one demo runs once the server, the model and the
// worker are up.
type demoScenario struct {
	// run runs the scenario's agent and reports it.
	run func(ctx context.Context, out io.Writer, o demoOptions, c client.Client, worker *child.Process, address string) error
	// scripted: the scenario is the scripted model's story, so it runs on
	// the scripted model even when OPENAI_BASE_URL names a real one.
	scripted bool
	// scripts replace the scripted model's stock scripts of the same name.
	scripts map[string]scriptedmodel.Script
}

var travelScenario = demoScenario{run: runDemoAgent}

// defaultWorkerPath is unstuck-worker beside this binary (bin/).
func defaultWorkerPath() string {
	exe, err := os.Executable()
	if err != nil {
		return "bin/unstuck-worker"
	}
	return filepath.Join(filepath.Dir(exe), "unstuck-worker")
}

// demoModel is what the demo needs of the model server it starts when no
// real endpoint is configured: its base URL, and a way to stop it.
type demoModel interface {
	URL() string
	Close() error
}

// startScriptedModel starts the scripted model server on loopback: a TEST
// DOUBLE that speaks the OpenAI chat-completions wire format and plays the
// demos' scripts (the travel demo's for a model it does not know; the
// stock agent names its own), replace's in place of the stock scripts of
// the same name. It is the only place the demo starts the double.
func startScriptedModel(out io.Writer, replace map[string]scriptedmodel.Script) (demoModel, error) {
	scripts := scriptedmodel.Scenarios()
	maps.Copy(scripts, replace)
	model, err := scriptedmodel.Start("127.0.0.1:0", scripts, scriptedmodel.TravelDemo,
		scriptedmodel.WithLogf(func(format string, args ...any) { fmt.Fprintf(out, "» "+format+"\n", args...) }))
	if err != nil {
		return nil, err // not a nil *Server inside a non-nil interface
	}
	return model, nil
}

// runDemo starts the dev server, the model (the scripted test double unless
// OPENAI_BASE_URL is set and the scenario allows it) and the worker, runs
// the scenario's agent, reports the run and, unless --once, keeps
// everything running until Ctrl-C. Everything it starts is stopped in the
// reverse order on the way out.
func runDemo(ctx context.Context, out io.Writer, o demoOptions, scenario demoScenario) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// SIGHUP too: closing the terminal must stop the children as well.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()

	if err := prepareDemo(o); err != nil {
		return err
	}
	unlock, err := lockDemo(o)
	if err != nil {
		return err
	}
	defer unlock()

	address := fmt.Sprintf("127.0.0.1:%d", o.port)
	server, err := startDemoServer(out, o, address)
	if err != nil {
		return err
	}
	defer server.Stop()

	c, err := dialWhenReady(ctx, address, server)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := app.EnsureSearchAttributes(ctx, c, app.DefaultNamespace); err != nil {
		return err
	}

	stopConsole, err := startDemoConsole(ctx, out, o, c)
	if err != nil {
		return err
	}
	defer stopConsole()

	modelURL, stopModel, err := startDemoModel(out, scenario.scripted, scenario.scripts)
	if err != nil {
		return err
	}
	defer stopModel()

	version, err := demoVersion(o)
	if err != nil {
		return err
	}
	worker, err := startDemoWorker(out, o, address, modelURL, version)
	if err != nil {
		return err
	}
	defer worker.Stop()
	if err := makeDemoBuildCurrent(ctx, out, c, version, worker); err != nil {
		return err
	}

	if err := scenario.run(ctx, out, o, c, worker, address); err != nil {
		return err
	}
	if o.once {
		return nil
	}
	fmt.Fprintln(out, "\nEverything keeps running; press Ctrl-C to stop the worker and the server.")
	<-ctx.Done()
	fmt.Fprintln(out, "\n» stopping")
	return nil
}

// prepareDemo checks that the binaries the demo runs exist and makes the
// data directory.
func prepareDemo(o demoOptions) error {
	for _, bin := range []struct{ flag, path string }{{"--temporal", o.temporal}, {"--worker", o.worker}} {
		if _, err := os.Stat(bin.path); err != nil {
			return fmt.Errorf("%s %s: not found (run `make demo`, which installs and builds it)", bin.flag, bin.path)
		}
	}
	return os.MkdirAll(o.dataDir, 0o755)
}

// startDemoServer starts the Temporal dev server on address, with its
// history in the data directory and the search attributes registered.
func startDemoServer(out io.Writer, o demoOptions, address string) (*child.Process, error) {
	fmt.Fprintf(out, "» starting Temporal dev server on %s (Web UI http://127.0.0.1:%d, history in %s)\n", address, o.uiPort, filepath.Join(o.dataDir, "temporal.db"))
	args := append([]string{"server", "start-dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(o.port), "--ui-port", fmt.Sprint(o.uiPort),
		"--db-filename", filepath.Join(o.dataDir, "temporal.db"), "--log-level", "warn",
		"--search-attribute", signals.AttrAgentName + "=Keyword", "--search-attribute", signals.AttrAgentPhase + "=Keyword"},
		config.DevServerArgs()...)
	return startProcess(filepath.Join(o.dataDir, "temporal.log"), nil, o.temporal, args...)
}

// startDemoModel answers the model endpoint the worker is to use:
// OPENAI_BASE_URL when set (unless scripted), else a scripted model server
// (a test double) started here. stop stops what was started (nothing for a
// real endpoint).
func startDemoModel(out io.Writer, scripted bool, scripts map[string]scriptedmodel.Script) (url string, stop func(), err error) {
	base := os.Getenv("OPENAI_BASE_URL")
	if base != "" && !scripted {
		fmt.Fprintf(out, "» model: %s (OPENAI_BASE_URL)\n", base)
		return base, func() {}, nil
	}
	model, err := startScriptedModel(out, scripts)
	if err != nil {
		return "", nil, err
	}
	if scripted {
		fmt.Fprintf(out, "» model: the SCRIPTED model server (a test double, not a real model): this scenario is its script's story, so it runs on it")
		if base != "" {
			fmt.Fprintf(out, " even though OPENAI_BASE_URL is set")
		}
		fmt.Fprintln(out)
	} else {
		fmt.Fprintf(out, "» model: the SCRIPTED model server (a test double, not a real model); set OPENAI_BASE_URL, OPENAI_API_KEY and UNSTUCK_DEMO_MODEL to use a real one\n")
	}
	return model.URL(), func() { _ = model.Close() }, nil
}

// startDemoWorker writes the demo config into the data directory and
// starts the unstuck worker on it, against the server at address and the
// model at modelURL.
func startDemoWorker(out io.Writer, o demoOptions, address, modelURL string, v app.Versioning) (*child.Process, error) {
	configPath := filepath.Join(o.dataDir, "demo-agents.yaml")
	if err := os.WriteFile(configPath, demoConfig, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"--config", configPath}, versioningArgs(v)...)
	fmt.Fprintf(out, "» starting worker: %s %s (log in %s)\n", o.worker, strings.Join(args, " "), filepath.Join(o.dataDir, "worker.log"))
	return startProcess(filepath.Join(o.dataDir, "worker.log"),
		[]string{"TEMPORAL_ADDRESS=" + address, "TEMPORAL_NAMESPACE=" + app.DefaultNamespace, "UNSTUCK_DEMO_MODEL_URL=" + modelURL},
		o.worker, args...)
}

// runDemoAgent runs the travel agent on the demo task, showing each trace
// node as it happens, then prints the trace table, the output (or why the
// run did not complete, which is also the error returned) and where to look
// next.
func runDemoAgent(ctx context.Context, out io.Writer, o demoOptions, c client.Client, worker *child.Process, address string) error {
	id := "demo-travel-" + time.Now().UTC().Format("20060102-150405")
	fmt.Fprintf(out, "» running agent %q on %q (workflow id %s)\n\n", "travel", demoTask, id)
	in := workflows.AgentInput{Agent: "travel", Task: demoTask}
	run, err := c.ExecuteWorkflow(ctx, withRunMetadata(client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionTimeout: 10 * time.Minute,
	}, in), workflows.WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start the demo run: %w", err)
	}
	res, runErr := followRun(ctx, out, c, run, worker)

	fmt.Fprintln(out)
	if tr, err := queryTrace(ctx, c, run.GetID(), run.GetRunID()); err == nil {
		fmt.Fprintln(out, "Trace:")
		if err := renderTable(out, tr); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	if runErr != nil {
		fmt.Fprintf(out, "The demo run did not complete: %v\n%s\n", runErr, o.runLinks(id))
		return runErr
	}
	fmt.Fprintf(out, "Completed in %d steps. Output:\n%s\n\n", res.Steps, indentJSON(res.Output))
	fmt.Fprintln(out, o.runLinks(id))
	fmt.Fprintf(out, "Try:     TEMPORAL_ADDRESS=%s bin/unstuck trace %s --format mermaid\n", address, id)
	fmt.Fprintf(out, "         bin/temporal workflow list --address %s --query \"AgentPhase='completed'\"\n", address)
	return nil
}
