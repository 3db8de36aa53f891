package load

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// The self-contained load's agent, tool and task.
const (
	LocalAgent = "load"
	LocalTool  = "work"
	LocalTask  = "Call the work tool the scripted number of times, then give the final output."
	// DefaultSteps is how many tool calls a self-contained run makes
	// before its final output.
	DefaultSteps = 5
)

// Setup labels of the report, so no reader takes the scripted model's
// figures for a real model's.
const (
	LocalSetup    = "self-contained: the scripted model server (a TEST DOUBLE, not a real model), a loopback HTTP tool, an in-process worker"
	ExternalSetup = "external: the workers already polling the task queue, with their own model and tools"
)

// LocalOptions configure StartLocal.
type LocalOptions struct {
	// Steps is how many times each run calls the tool before its final
	// output. 0: DefaultSteps.
	Steps int
	// ToolLatency is how long the tool takes to answer each call.
	ToolLatency time.Duration
	// TaskQueue is the worker's; empty: unstuck-load-<random hex>, so no
	// other worker takes the load's runs.
	TaskQueue string
	// Namespace is where the search attributes are registered; empty:
	// "default".
	Namespace string
	// Logf gets the scripted model server's start line (which says it is
	// a test double); nil: silent.
	Logf func(format string, args ...any)
	// Worker are the in-process worker's options.
	Worker worker.Options
}

// Local is the self-contained load's setup, running: the scripted model
// server (a TEST DOUBLE), the tool server and an unstuck worker.
type Local struct {
	// Agent, Task and TaskQueue are what Options need to load it.
	Agent, Task, TaskQueue string
	// Steps is the tool calls of each run.
	Steps int
	// Model is the scripted model server: a test double, not a model.
	Model *scriptedmodel.Server
	// Tools is the loopback tool server and its record of the calls.
	Tools   *ToolServer
	workers *app.Workers
}

// StartLocal starts the scripted model server, the tool server and an
// unstuck worker (app.NewWorkers, the config built here) polling its own
// task queue on c's server. Close stops them.
func StartLocal(ctx context.Context, c client.Client, o LocalOptions) (_ *Local, err error) {
	if o.Steps < 0 {
		return nil, fmt.Errorf("load: steps must not be negative, not %d", o.Steps)
	}
	if o.Steps == 0 {
		o.Steps = DefaultSteps
	}
	if o.TaskQueue == "" {
		o.TaskQueue = "unstuck-load-" + randomHex()
	}
	if o.Namespace == "" {
		o.Namespace = app.DefaultNamespace
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	l := &Local{Agent: LocalAgent, Task: LocalTask, TaskQueue: o.TaskQueue, Steps: o.Steps}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	// The workflow sets AgentName and AgentPhase: on a fresh server they
	// must exist first, as unstuck-worker makes sure at its start.
	if err := app.EnsureSearchAttributes(ctx, c, o.Namespace); err != nil {
		return nil, err
	}
	if l.Model, err = scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{LocalAgent: localScript(o.Steps)}, "",
		scriptedmodel.WithLogf(logf)); err != nil {
		return nil, err
	}
	if l.Tools, err = StartToolServer(o.ToolLatency); err != nil {
		return nil, err
	}
	cfg, err := localConfig(l.Model.URL(), l.Tools.URL(), o.Steps)
	if err != nil {
		return nil, err
	}
	ws, err := app.NewWorkers(c, cfg, o.TaskQueue, o.Worker)
	if err != nil {
		return nil, err
	}
	if err := ws.Start(); err != nil {
		return nil, fmt.Errorf("load: start the worker: %w", err)
	}
	l.workers = ws
	return l, nil
}

// Close stops the worker, then the servers it calls.
func (l *Local) Close() {
	if l.workers != nil {
		l.workers.Stop()
	}
	if l.Tools != nil {
		_ = l.Tools.Close()
	}
	if l.Model != nil {
		_ = l.Model.Close()
	}
}

// Options are load Options for this setup; the caller sets Runs,
// Concurrency and Progress.
func (l *Local) Options() Options {
	return Options{Agent: l.Agent, Task: l.Task, TaskQueue: l.TaskQueue, Setup: LocalSetup}
}

// localConfig is the agent config of the self-contained load: the agent
// "load" with the one HTTP tool, on the scripted model. max_steps leaves
// room over the script's steps, so a run stops only if something is wrong.
func localConfig(modelURL, toolURL string, steps int) (*config.File, error) {
	yaml := fmt.Sprintf(`
model: { base_url: %q, name: %s }
tools:
  - name: %s
    description: Does one unit of work (the load's loopback tool).
    http: { method: POST, url: %q }
    parameters: { type: object, properties: { step: { type: integer } } }
agents:
  - name: %s
    instructions: A load-test agent. Its model is the scripted model server, a test double.
    tools: [%s]
    policies: { max_steps: %d }
`, modelURL, LocalAgent, LocalTool, toolURL, LocalAgent, LocalTool, steps+10)
	cfg, err := config.Parse("load.yaml", []byte(yaml), app.ConfigOptions())
	if err != nil {
		return nil, errors.Join(errors.New("load: the built-in config is refused"), err)
	}
	return cfg, nil
}

// localScript is the scripted model's script (a test double): steps turns
// each calling the tool once, then final_output. It is a pure function of
// the conversation, so a retried request gets the same answer.
func localScript(steps int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		turn := scriptedmodel.AssistantTurns(req)
		if turn < steps {
			return scriptedmodel.CallTurn(LocalTool, map[string]any{"step": turn + 1})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"steps": turn})
	}
}

// randomHex is 6 random hex digits.
func randomHex() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
