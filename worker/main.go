package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/telemetry"
	"github.com/unstuck-dev/unstuck/workflows"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "unstuck-worker:", err)
		os.Exit(1)
	}
}

// workerFlags are the worker's flags, declared on fs by newFlagSet.
type workerFlags struct {
	configPath, taskQueue, metricsListen *string
	tuning                               tuningFlags
	versioning                           *versioningFlags
}

// newFlagSet declares every flag of unstuck-worker, with its usage text.
func newFlagSet() (*flag.FlagSet, workerFlags) {
	fs := flag.NewFlagSet("unstuck-worker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: unstuck-worker --config agents.yaml [--task-queue agents] [--metrics-listen ADDR] [tuning flags]

Runs the unstuck worker: AgentWorkflow and its model and tool activities.
A tool with max_concurrent or rate is served on its own task queue,
<task-queue>/tool/<tool name>, by a worker of this process with those limits.

The tuning flags (--max-concurrent-workflow-tasks, --max-concurrent-activities,
--workflow-pollers, --activity-pollers, --sticky-cache-size) override the
config's worker: block; each must be at least 1. Their defaults are the
Temporal SDK's.

Worker Versioning: with --deployment-name the worker polls as the version
<deployment>:<build id> of that Temporal worker deployment, and each run is
pinned to the version that started it (--versioning-behavior auto-upgrade
moves runs to the current version instead). A new version gets runs once
it is made current: temporal worker deployment set-current-version
--deployment-name <name> --build-id <id> (docs/deploying.md, "Deploying new builds").
The first version of a deployment makes itself current (--bootstrap-current,
on by default); a worker never changes a current or ramping version.

Environment:
  TEMPORAL_ADDRESS    Temporal frontend (default %s)
  TEMPORAL_NAMESPACE  namespace (default %s)
  TEMPORAL_API_KEY    API key of a managed Temporal service (turns TLS on)
  TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME
                      mTLS client certificate and key, server CA, server name (PEM files)
  OPENAI_BASE_URL     overrides the config's model base_url
  OPENAI_API_KEY      overrides the config's api_key_env
  OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
                      send traces over OTLP/gRPC there (default: no export)
  UNSTUCK_DEPLOYMENT_NAME, UNSTUCK_BUILD_ID, UNSTUCK_VERSIONING_BEHAVIOR,
  UNSTUCK_BOOTSTRAP_CURRENT
                      defaults of the versioning flags

Flags:
`, app.DefaultAddress, app.DefaultNamespace)
		fs.PrintDefaults()
	}
	var wf workerFlags
	wf.configPath = fs.String("config", "", "agent config file (YAML, see docs/configuration.md)")
	wf.taskQueue = fs.String("task-queue", workflows.TaskQueue, "task queue to poll")
	wf.metricsListen = fs.String("metrics-listen", "", "serve Prometheus metrics on this address at /metrics, e.g. 127.0.0.1:9090 (default: off)")
	wf.tuning = addTuningFlags(fs)
	wf.versioning = addVersioningFlags(fs)
	return fs, wf
}

func run() error {
	fs, wf := newFlagSet()
	configPath, taskQueue, metricsListen := wf.configPath, wf.taskQueue, wf.metricsListen
	tuning, versioning := wf.tuning, wf.versioning
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	// Checked before the config, so a bad flag is named on its own.
	if err := tuning.apply(fs, &config.WorkerTuning{}); err != nil {
		return err
	}
	if *versioning.printBuildID {
		id, err := versioning.buildIDToPrint()
		if err != nil {
			return err
		}
		fmt.Println(id)
		return nil
	}
	version, bootstrap, err := versioning.resolve(fs)
	if err != nil {
		return err
	}
	if err := version.Validate(); err != nil {
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
	if err := tuning.apply(fs, &cfg.Worker); err != nil {
		return err
	}
	app.ApplyStickyCacheSize(cfg.Worker)

	opts, err := app.WithSecurity(app.ClientOptions(), nil)
	if err != nil {
		return err
	}
	opts.Logger = app.QuietLogger()
	// Bound before the worker starts, so an address in use stops it here.
	if *metricsListen != "" {
		metrics, err := telemetry.ServeMetrics(*metricsListen)
		if err != nil {
			return fmt.Errorf("--metrics-listen: %w", err)
		}
		defer func() { _ = metrics.Close(context.Background()) }()
		opts.MetricsHandler = metrics.Handler
	}
	stopTracing, err := telemetry.StartTracing(context.Background(), "unstuck-worker")
	if err != nil {
		return err
	}
	defer func() { _ = stopTracing(context.Background()) }()
	if opts, err = telemetry.WithTracing(opts); err != nil {
		return err
	}
	c, err := client.Dial(opts)
	if err != nil {
		return app.ConnectError(opts.HostPort, opts.Namespace, err)
	}
	defer c.Close()
	if err := app.EnsureSearchAttributes(context.Background(), c, opts.Namespace); err != nil {
		return app.WithDatabaseAdvice(opts.HostPort, err)
	}
	if err := app.CheckQueueVersioning(context.Background(), c, *taskQueue, version); err != nil {
		return err
	}
	ws, err := app.NewWorkers(c, cfg, *taskQueue, version.Apply(worker.Options{}))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "unstuck-worker: %d agents, %d tools from %s; polling task queue %q on %s (namespace %s); %s; %s\n",
		len(cfg.Agents), len(cfg.Tools), *configPath, *taskQueue, opts.HostPort, opts.Namespace, describeTuning(&cfg.Worker), version)
	for _, t := range cfg.Tools {
		if t.Limited() {
			fmt.Fprintf(os.Stderr, "unstuck-worker: tool %s on task queue %q (%s)\n", t.Name, config.ToolTaskQueue(*taskQueue, t.Name), toolLimits(t))
		}
	}
	if err := ws.Start(); err != nil {
		return err
	}
	defer ws.Stop()
	// After Start: the server registers the version from the workers' polls.
	if version.On() && bootstrap {
		res, err := app.BootstrapCurrent(context.Background(), c, version, false, app.BootstrapTimeout)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "unstuck-worker: %s\n", res.String(version))
	}
	return ws.Wait(worker.InterruptCh())
}
