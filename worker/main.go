package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/internal/app"
	"github.com/unstuck-dev/unstuck/workflows"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "unstuck-worker:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("unstuck-worker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: unstuck-worker --config agents.yaml [--task-queue agents]

Runs the unstuck worker: AgentWorkflow and its model and tool activities.

Environment:
  TEMPORAL_ADDRESS    Temporal frontend (default %s)
  TEMPORAL_NAMESPACE  namespace (default %s)
  OPENAI_BASE_URL     overrides the config's model base_url
  OPENAI_API_KEY      overrides the config's api_key_env

Flags:
`, app.DefaultAddress, app.DefaultNamespace)
		fs.PrintDefaults()
	}
	configPath := fs.String("config", "", "agent config file (YAML, see CONTRACT.md)")
	taskQueue := fs.String("task-queue", workflows.TaskQueue, "task queue to poll")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if *configPath == "" {
		fs.Usage()
		return fmt.Errorf("--config is required")
	}
	cfg, err := app.LoadConfig(*configPath)
	if err != nil {
		return fmt.Errorf("config refused:\n%w", err)
	}

	opts := app.ClientOptions()
	opts.Logger = app.QuietLogger()
	c, err := client.Dial(opts)
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s (namespace %s): %w", opts.HostPort, opts.Namespace, err)
	}
	defer c.Close()
	if err := app.EnsureSearchAttributes(context.Background(), c, opts.Namespace); err != nil {
		return err
	}
	w := app.NewWorker(c, cfg, *taskQueue, worker.Options{})
	fmt.Fprintf(os.Stderr, "unstuck-worker: %d agents, %d tools from %s; polling task queue %q on %s (namespace %s)\n",
		len(cfg.Agents), len(cfg.Tools), *configPath, *taskQueue, opts.HostPort, opts.Namespace)
	return w.Run(worker.InterruptCh())
}
