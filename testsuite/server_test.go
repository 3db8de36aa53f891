package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"
	temporaltest "go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/app/cluster"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// onCluster is set when the tests run on a real cluster (UNSTUCK_CLUSTER
// names the directory make test-cluster installs the server into).
var onCluster = os.Getenv("UNSTUCK_CLUSTER") != ""

// testCluster is the cluster the tests run on, when onCluster.
var testCluster *cluster.Cluster

// startServer starts the tests' server and sets serverClient and
// serverAddress; stop stops it.
func startServer(ctx context.Context) (stop func() error, err error) {
	if onCluster {
		return startCluster(ctx)
	}
	dev, err := temporaltest.StartDevServer(ctx, temporaltest.DevServerOptions{
		ExistingPath:  temporalBin,
		ClientOptions: &client.Options{Namespace: "default", Logger: testutil.QuietLogger()},
		LogLevel:      "error",
		// The settings a deployment sets (eager dispatch, eager start), and
		// the tests' own: Temporal suggests continue-as-new after this many
		// events (4096 by default), so a test run of a few dozen steps
		// crosses generations.
		ExtraArgs: append(config.DevServerArgs(),
			"--dynamic-config-value", fmt.Sprintf("limit.historyCount.suggestContinueAsNew=%d", suggestContinueAsNewEvents)),
		Stdout: os.Stderr,
		Stderr: os.Stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("start dev server %s: %w", temporalBin, err)
	}
	serverClient, serverAddress = dev.Client(), dev.FrontendHostPort()
	return dev.Stop, nil
}

// startCluster starts the real cluster (app/cluster): the pinned
// server on PostgreSQL, set up as docker-compose.yml deploys it, with the
// tests' continue-as-new hint added to the deployment's dynamic config.
func startCluster(ctx context.Context) (func() error, error) {
	opts := clusterOptions()
	opts.Postgres = os.Getenv("UNSTUCK_CLUSTER_POSTGRES")
	opts.DynamicConfig = map[string]any{"limit.historyCount.suggestContinueAsNew": suggestContinueAsNewEvents}
	opts.Progress = os.Stderr
	// The server's log outlives the cluster, for a test that failed.
	opts.LogDir = filepath.Join(repoRoot, "artifacts", "cluster")
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("start the cluster: %w", err)
	}
	testCluster = c
	serverAddress = c.Address
	serverClient, err = client.Dial(client.Options{HostPort: c.Address, Namespace: "default", Logger: testutil.QuietLogger()})
	if err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c.Stop, nil
}

// clusterOptions are the options every cluster of the tests shares: the
// release make test-cluster installs, and the compose file.
func clusterOptions() cluster.Options {
	return cluster.Options{Bin: os.Getenv("UNSTUCK_CLUSTER"), Compose: filepath.Join(repoRoot, "docker-compose.yml")}
}
