package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/unstuck-dev/unstuck/policies"
)

// Options say where the cluster's parts are.
type Options struct {
	// Bin is the directory make test-cluster installs the pinned release
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
	// Progress gets a line per phase (nil: none).
	Progress io.Writer
}

// Cluster is a running Temporal server on PostgreSQL.
type Cluster struct {
	// Address is the frontend's host:port.
	Address    string
	Deployment *Deployment
	Postgres   *Postgres
	dir        string
	server     *server
}

// startBound bounds a cluster's start: schemas take seconds, the
// server's services join their ring in a few more.
const startBound = 3 * time.Minute

// Start starts PostgreSQL (unless o.Postgres names one), sets up or
// checks the schemas, starts the server and registers the namespace
// default, waiting until it can be used. On error, whatever it started is
// stopped.
func Start(ctx context.Context, o Options) (c *Cluster, err error) {
	ctx, cancel := context.WithTimeout(ctx, startBound)
	defer cancel()
	began := time.Now()
	say := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "cluster: "+format+"\n", args...)
		}
	}
	d, err := ReadDeployment(o.Compose)
	if err != nil {
		return nil, err
	}
	serverBin := filepath.Join(o.Bin, "server")
	if err := checkVersion(ctx, serverBin, d.ServerVersion); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "unstuck-cluster-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Deployment: d, dir: dir}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()

	user, password := d.Env["POSTGRES_USER"], d.Env["POSTGRES_PWD"]
	if o.Postgres != "" {
		c.Postgres, err = ExistingPostgres(ctx, o.Postgres, user, password)
	} else {
		c.Postgres, err = StartPostgres(ctx, user, password, nil)
	}
	if err != nil {
		return c, err
	}
	say("PostgreSQL on %s (%s)", c.Postgres.Addr(), time.Since(began).Round(time.Millisecond))

	schemas := schemaTool{tool: filepath.Join(o.Bin, "sql"), schemas: filepath.Join(o.Bin, "schema", "postgresql", "v12"), pg: c.Postgres}
	for _, db := range databases {
		if err := schemas.check(ctx, db, d.ServerVersion); err != nil {
			return c, err
		}
	}
	say("schemas of %s current (%s)", d.ServerVersion, time.Since(began).Round(time.Millisecond))

	ports := map[string]int{}
	for _, name := range portVars {
		if ports[name], err = freePort(); err != nil {
			return c, err
		}
	}
	dynamicConfig := filepath.Join(dir, "dynamicconfig.yaml")
	if err := writeDynamicConfig(d.DynamicConfig, dynamicConfig, o.DynamicConfig); err != nil {
		return c, err
	}
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return c, err
	}
	env := serverEnv(d, c.Postgres, dynamicConfig, ports)
	if c.server, err = startServer(serverBin, filepath.Join(o.Bin, "config_template.yaml"), dir, env, logFile); err != nil {
		return c, err
	}
	c.Address = c.server.address
	if err := c.waitFrontend(ctx); err != nil {
		return c, err
	}
	say("Temporal server %s on %s, %s shards (%s)", d.ServerVersion, c.Address, env["NUM_HISTORY_SHARDS"], time.Since(began).Round(time.Millisecond))
	if err := RegisterNamespace(ctx, c.Address, "default"); err != nil {
		return c, err
	}
	say("namespace default ready (%s)", time.Since(began).Round(time.Millisecond))
	return c, nil
}

// waitFrontend waits until the frontend answers, or the server exits.
func (c *Cluster) waitFrontend(ctx context.Context) error {
	for {
		dialCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		cl, err := client.DialContext(dialCtx, client.Options{HostPort: c.Address, Logger: quiet{}})
		cancel()
		if err == nil {
			cl.Close()
			return nil
		}
		select {
		case exit := <-c.server.exited:
			c.server.exited <- exit
			return fmt.Errorf("the Temporal server exited while starting (%v):\n%s", exit, c.logTail())
		case <-ctx.Done():
			return fmt.Errorf("the Temporal server on %s did not answer within %s: %w\n%s", c.Address, startBound, err, c.logTail())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// logTail is the end of the server's log, for an error.
func (c *Cluster) logTail() string {
	data, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	lines = lines[max(0, len(lines)-10):]
	for i, line := range lines {
		lines[i] = policies.ClipText(line, 400)
	}
	return strings.Join(lines, "\n")
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
// files.
func (c *Cluster) Stop() error {
	var errs []error
	if c.server != nil {
		errs = append(errs, c.server.stop())
	}
	if c.Postgres != nil {
		errs = append(errs, c.Postgres.Stop())
	}
	errs = append(errs, os.RemoveAll(c.dir))
	return errors.Join(errs...)
}
