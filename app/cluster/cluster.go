package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/child"
)

// Options say where the cluster's parts are.
type Options struct {
	// Bin is the directory make cluster-tools installs the pinned release
	// into: server, sql (the SQL tool), schema/postgresql and
	// config_template.yaml.
	Bin string
	// Compose is docker-compose.yml, the source of the server's version
	// and settings.
	Compose string
	// Postgres is a PostgreSQL already running (host:port, the compose
	// file's user and password); empty starts one of our own.
	Postgres string
	// DynamicConfig are values added to the deployment's dynamic config
	// (tests lower the continue-as-new hint).
	DynamicConfig map[string]any
	// LogDir, when set, keeps the server's log (server-<port>.log) after
	// Stop; else it goes with the cluster's files.
	LogDir string
	// Progress gets a line per phase (nil: none).
	Progress io.Writer
}

// Cluster is a running Temporal server on PostgreSQL.
type Cluster struct {
	// Address is the frontend's host:port.
	Address    string
	Deployment *Deployment
	Postgres   *Postgres
	// LogPath is the server's log.
	LogPath  string
	dir      string
	server   *child.Process
	stopOnce sync.Once
	stopErr  error
}

// startBound bounds a cluster's start: schemas take seconds, the
// server's services join their ring in a few more.
const startBound = 3 * time.Minute

// Start starts PostgreSQL (unless o.Postgres names one), sets up or
// checks the schemas, starts the server and registers the namespace
// default, waiting until it can be used. On error, whatever it started is
// stopped. The servers die with this process.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, startBound)
	defer cancel()
	c := &Cluster{}
	if err := c.start(ctx, o); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, o Options) (err error) {
	began := time.Now()
	say := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "cluster: "+format+" (%s)\n", append(args, time.Since(began).Round(time.Millisecond))...)
		}
	}
	if c.Deployment, err = ReadDeployment(o.Compose); err != nil {
		return err
	}
	d := c.Deployment
	serverBin := filepath.Join(o.Bin, "server")
	if err := checkVersion(ctx, serverBin, d.ServerVersion); err != nil {
		return err
	}
	if c.dir, err = ownedTempDir("unstuck-cluster-"); err != nil {
		return err
	}

	user, password := d.Env["POSTGRES_USER"], d.Env["POSTGRES_PWD"]
	if o.Postgres != "" {
		c.Postgres, err = ExistingPostgres(ctx, o.Postgres, user, password)
	} else {
		c.Postgres, err = StartPostgres(ctx, user, password)
	}
	if err != nil {
		return err
	}
	say("PostgreSQL on %s", c.Postgres.Addr())

	schemas := schemaTool{tool: filepath.Join(o.Bin, "sql"), schemas: filepath.Join(o.Bin, "schema", "postgresql", "v12"), pg: c.Postgres}
	for _, db := range databases(d.Env) {
		if err := schemas.check(ctx, db, d.ServerVersion); err != nil {
			return err
		}
	}
	say("schemas of %s current", d.ServerVersion)

	ports := map[string]int{}
	for _, name := range portVars {
		if ports[name], err = freePort(); err != nil {
			return err
		}
	}
	dynamicConfig := filepath.Join(c.dir, "dynamicconfig.yaml")
	if err := writeDynamicConfig(d.DynamicConfig, dynamicConfig, o.DynamicConfig); err != nil {
		return err
	}
	c.LogPath = filepath.Join(c.dir, "server.log")
	if o.LogDir != "" {
		if err := os.MkdirAll(o.LogDir, 0o755); err != nil {
			return err
		}
		c.LogPath = filepath.Join(o.LogDir, fmt.Sprintf("server-%d.log", ports["FRONTEND_GRPC_PORT"]))
	}
	env := serverEnv(d, c.Postgres, dynamicConfig, ports)
	if c.server, err = startServer(serverBin, filepath.Join(o.Bin, "config_template.yaml"), c.dir, c.LogPath, env); err != nil {
		return err
	}
	c.Address = fmt.Sprintf("127.0.0.1:%d", ports["FRONTEND_GRPC_PORT"])
	if err := c.waitFrontend(ctx); err != nil {
		return err
	}
	say("Temporal server %s on %s, %s history shards, log %s", d.ServerVersion, c.Address, env["NUM_HISTORY_SHARDS"], c.LogPath)
	if err := RegisterNamespace(ctx, c.Address, "default"); err != nil {
		return err
	}
	say("namespace default ready")
	return nil
}

// waitFrontend waits until the frontend answers, or the server exits.
func (c *Cluster) waitFrontend(ctx context.Context) error {
	cl, err := app.DialWhenReady(ctx, client.Options{HostPort: c.Address, Logger: quiet{}}, c.server.Exited())
	switch {
	case errors.Is(err, app.ErrServerExited):
		return fmt.Errorf("the Temporal server exited while starting (%v); the end of its log (%s):\n%s", c.server.Err(), c.LogPath, c.server.Tail(10))
	case err != nil:
		return fmt.Errorf("%w; the end of its log (%s):\n%s", err, c.LogPath, c.server.Tail(10))
	}
	cl.Close()
	return nil
}

// RegisterNamespace registers namespace on the cluster at address (one
// day's retention, as the compose file's auto-setup does) and waits until
// the frontend serves it: a real cluster takes a new namespace into its
// cache only at the next refresh.
func RegisterNamespace(ctx context.Context, address, namespace string) error {
	nc, err := client.NewNamespaceClient(client.Options{HostPort: address, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer nc.Close()
	err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: namespace, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace %s: %w", namespace, err)
	}
	cl, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		_, err := cl.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %s registered but not served: %w", namespace, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop stops the server and a PostgreSQL of our own, and removes their
// files (a log kept in Options.LogDir stays). Stopping twice is stopping
// once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		if c.server != nil {
			errs = append(errs, c.server.Stop())
		}
		if c.Postgres != nil {
			errs = append(errs, c.Postgres.Stop())
		}
		if c.dir != "" {
			errs = append(errs, os.RemoveAll(c.dir))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}
