package testsuite

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/app/cluster"
)

// The cluster's bad input, on its real parts. They need the cluster's
// server and PostgreSQL programs, which make test's cluster part and make
// test-cluster provide (UNSTUCK_CLUSTER); the dev server's pass has
// neither and says so.
func needCluster(t *testing.T) {
	t.Helper()
	if !onCluster {
		t.Skip("needs the cluster's programs: make test runs this in its cluster part, make test-cluster too")
	}
}

// A PostgreSQL that does not answer: the cluster refuses to start, naming
// the address and what to do.
func TestClusterRefusesAnUnreachablePostgres(t *testing.T) {
	t.Parallel()
	needCluster(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now

	opts := clusterOptions()
	opts.Postgres = addr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = cluster.Start(ctx, opts)
	require.Error(t, err)
	require.Contains(t, err.Error(), fmt.Sprintf("PostgreSQL at %s is not reachable", addr))
	require.Contains(t, err.Error(), "the Temporal server cannot start without its database")
	require.Contains(t, err.Error(), "Start PostgreSQL")
}

// A database whose schema is older than the pinned server needs (set up
// by the server's own SQL tool at an older version): the cluster refuses
// to start before the server would, naming the database, both versions
// and the command that updates it.
func TestClusterRefusesAnOldSchema(t *testing.T) {
	t.Parallel()
	needCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := cluster.StartPostgres(ctx, testCluster.Postgres.User, testCluster.Postgres.Password)
	require.NoError(t, err)
	t.Cleanup(func() { _ = pg.Stop() })

	opts := clusterOptions()
	versioned := filepath.Join(opts.Bin, "schema", "postgresql", "v12", "temporal", "versioned")
	sql := func(args ...string) {
		argv := append([]string{"--plugin", "postgres12", "--ep", pg.Host, "-p", strconv.Itoa(pg.Port),
			"-u", pg.User, "--pw", pg.Password, "--db", "temporal"}, args...)
		out, err := exec.CommandContext(ctx, filepath.Join(opts.Bin, "sql"), argv...).CombinedOutput()
		require.NoError(t, err, "sql %v:\n%s", args, out)
	}
	// The release's schema versions: set the database up at the one
	// before the newest.
	versions, err := cluster.SchemaVersions(versioned)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(versions), 2)
	need, old := versions[len(versions)-1], versions[len(versions)-2]
	sql("create-database")
	sql("setup-schema", "-v", "0.0")
	sql("update-schema", "-d", versioned, "-v", old)

	opts.Postgres = pg.Addr()
	_, err = cluster.Start(ctx, opts)
	require.Error(t, err)
	require.Contains(t, err.Error(), fmt.Sprintf("database temporal on %s has schema version %s, older than the %s that Temporal server %s needs",
		pg.Addr(), old, need, testCluster.Deployment.ServerVersion))
	require.Contains(t, err.Error(), "update-schema -d "+versioned)
}

// A cluster whose PostgreSQL went down under a running server: the server
// answers, every call fails, and the worker refuses to start, saying to
// look at the database.
//
// It takes about 40 s: it starts a cluster of its own, and the worker asks
// again while the server answers unavailable, until it gives up, as a
// worker in production does.
func TestClusterWorkerWhoseDatabaseIsDownSaysSo(t *testing.T) {
	t.Parallel()
	needCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	worker := filepath.Join(binaries(t), "unstuck-worker")
	c, err := cluster.Start(ctx, clusterOptions())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	// The worker starts at once: the server answers unavailable for a
	// while, then exits (its services cannot heartbeat their membership).
	require.NoError(t, c.Postgres.Stop())

	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(travelConfig, "{{MODEL}}", "http://127.0.0.1:9/v1")), 0o644))
	cmd := exec.CommandContext(ctx, worker, "--config", path)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+c.Address)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the worker must not start:\n%s", out)
	text := string(out)
	require.Contains(t, text, "the Temporal server at "+c.Address+" answers but cannot serve", "the server still runs: its answer gets the advice")
	require.Contains(t, text, "check that its PostgreSQL is up")
}
