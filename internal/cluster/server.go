package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"
)

// The ports the server's config template reads, each given a free
// loopback port so a cluster never meets a server already running here.
var portVars = []string{
	"FRONTEND_GRPC_PORT", "FRONTEND_HTTP_PORT", "FRONTEND_MEMBERSHIP_PORT",
	"HISTORY_GRPC_PORT", "HISTORY_MEMBERSHIP_PORT",
	"MATCHING_GRPC_PORT", "MATCHING_MEMBERSHIP_PORT",
	"WORKER_GRPC_PORT", "WORKER_MEMBERSHIP_PORT",
}

// server is a running Temporal server process.
type server struct {
	cmd     *exec.Cmd
	address string
	exited  chan error
}

// serverEnv is the compose file's environment for the temporal service
// with what must differ on one machine: loopback, our PostgreSQL, free
// ports and the dynamic config file written for this cluster.
func serverEnv(d *Deployment, pg *Postgres, dynamicConfig string, ports map[string]int) map[string]string {
	env := map[string]string{}
	for k, v := range d.Env {
		env[k] = v
	}
	env["BIND_ON_IP"] = "127.0.0.1"
	env["TEMPORAL_BROADCAST_ADDRESS"] = "127.0.0.1"
	env["POSTGRES_SEEDS"] = pg.Host
	env["DB_PORT"] = strconv.Itoa(pg.Port)
	env["POSTGRES_USER"] = pg.User
	env["POSTGRES_PWD"] = pg.Password
	env["DYNAMIC_CONFIG_FILE_PATH"] = dynamicConfig
	if env["LOG_LEVEL"] == "" {
		env["LOG_LEVEL"] = "warn"
	}
	for name, port := range ports {
		env[name] = strconv.Itoa(port)
	}
	return env
}

// writeDynamicConfig writes the deployment's dynamic config file with
// extra (the tests' own values, such as a lower continue-as-new hint)
// added, to path.
func writeDynamicConfig(shared, path string, extra map[string]any) error {
	data, err := os.ReadFile(shared)
	if err != nil {
		return fmt.Errorf("the deployment's dynamic config: %w", err)
	}
	values := map[string]any{}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return fmt.Errorf("%s: %w", shared, err)
	}
	for k, v := range extra {
		values[k] = []map[string]any{{"value": v}}
	}
	out, err := yaml.Marshal(values)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// startServer renders the release's config template (the one the
// auto-setup image renders) with env under root and starts the server.
func startServer(bin, template, root string, env map[string]string, logs io.Writer) (*server, error) {
	tmpl, err := os.ReadFile(template)
	if err != nil {
		return nil, fmt.Errorf("the server's config template: %w (make test-cluster copies it beside the server)", err)
	}
	rendered, err := renderConfig(tmpl, env)
	if err != nil {
		return nil, err
	}
	configDir := filepath.Join(root, "config")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(configDir, "development.yaml"), rendered, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--root", root, "--config", "config", "--env", "development", "--allow-no-auth", "start")
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = logs, logs
	// Its own process group: Stop ends the server, not the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the Temporal server %s: %w", bin, err)
	}
	s := &server{cmd: cmd, address: "127.0.0.1:" + env["FRONTEND_GRPC_PORT"], exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	return s, nil
}

// stop ends the server: SIGTERM, then SIGKILL after a grace period.
func (s *server) stop() error {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		return fmt.Errorf("the Temporal server did not stop within 15s of SIGTERM: killed")
	}
}

// checkVersion refuses a server binary of another release than the
// compose file pins: the schemas and template beside it would not match.
func checkVersion(ctx context.Context, bin, want string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w: %s", bin, err, out)
	}
	got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "temporal version"))
	if got != want {
		return fmt.Errorf("%s is Temporal server %s, but docker-compose.yml pins %s: run make test-cluster, which installs the pinned one", bin, got, want)
	}
	return nil
}

// renderConfig renders the server's docker config template as the image
// does (dockerize): .Env is the environment, default takes the value
// first and the fallback second, split and trim are the strings ones.
func renderConfig(tmpl []byte, env map[string]string) ([]byte, error) {
	funcs := template.FuncMap{
		"default": func(value, fallback string) string {
			if value == "" {
				return fallback
			}
			return value
		},
		"lower": strings.ToLower,
		"split": strings.Split,
		"trim":  strings.TrimSpace,
	}
	t, err := template.New("config_template.yaml").Funcs(funcs).Option("missingkey=zero").Parse(string(tmpl))
	if err != nil {
		return nil, fmt.Errorf("the server's config template: %w", err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, map[string]any{"Env": env}); err != nil {
		return nil, fmt.Errorf("render the server's config template: %w", err)
	}
	return out.Bytes(), nil
}
