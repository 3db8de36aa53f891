package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/unstuck-dev/unstuck/internal/child"
)

// The ports the server's config template reads, each given a free
// loopback port so a cluster never meets a server already running here.
var portVars = []string{
	"FRONTEND_GRPC_PORT", "FRONTEND_HTTP_PORT", "FRONTEND_MEMBERSHIP_PORT",
	"HISTORY_GRPC_PORT", "HISTORY_MEMBERSHIP_PORT",
	"MATCHING_GRPC_PORT", "MATCHING_MEMBERSHIP_PORT",
	"WORKER_GRPC_PORT", "WORKER_MEMBERSHIP_PORT",
}

// notOnOneMachine are settings of the template a cluster of the tests
// leaves out: fixed ports two clusters would fight over (metrics, pprof)
// and the internal frontend, whose ports are not ours to choose.
var notOnOneMachine = []string{"PROMETHEUS_ENDPOINT", "STATSD_ENDPOINT", "PPROF_PORT", "USE_INTERNAL_FRONTEND"}

// serverEnv is the compose file's environment for the temporal service
// with what must differ on one machine: loopback, our PostgreSQL (for
// both stores), free ports and the dynamic config file written for this
// cluster.
func serverEnv(d *Deployment, pg *Postgres, dynamicConfig string, ports map[string]int) map[string]string {
	env := map[string]string{}
	for k, v := range d.Env {
		env[k] = v
	}
	for _, k := range notOnOneMachine {
		delete(env, k)
	}
	for _, prefix := range []string{"", "VISIBILITY_"} {
		env[prefix+"POSTGRES_SEEDS"] = pg.Host
		env[prefix+"POSTGRES_USER"] = pg.User
		env[prefix+"POSTGRES_PWD"] = pg.Password
	}
	env["DB_PORT"] = strconv.Itoa(pg.Port)
	env["VISIBILITY_DB_PORT"] = strconv.Itoa(pg.Port)
	env["BIND_ON_IP"] = "127.0.0.1"
	env["TEMPORAL_BROADCAST_ADDRESS"] = "127.0.0.1"
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
// auto-setup image renders) with env under root and starts the server,
// its output in logPath.
func startServer(bin, template, root, logPath string, env map[string]string) (*child.Process, error) {
	tmpl, err := os.ReadFile(template)
	if err != nil {
		return nil, fmt.Errorf("the server's config template: %w (make cluster-tools copies it beside the server)", err)
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
	return child.Start(cmd, logPath, child.Options{Grace: 15 * time.Second})
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

// checkVersion refuses a server binary of another release than the
// compose file pins: the schemas and template beside it would not match.
func checkVersion(ctx context.Context, bin, want string) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("no Temporal server at %s (%v): make cluster-tools installs the release docker-compose.yml pins into bin/cluster-v%s, the directory UNSTUCK_CLUSTER names", bin, err, want)
	}
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w: %s", bin, err, out)
	}
	got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "temporal version"))
	if got != want {
		return fmt.Errorf("%s is Temporal server %s, but docker-compose.yml pins %s: make cluster-tools installs the pinned one into bin/cluster-v%s", bin, got, want, want)
	}
	return nil
}
