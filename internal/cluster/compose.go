package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// serverImage is the image the compose file's temporal service runs; its
// tag is the server version everything else follows.
const serverImage = "temporalio/auto-setup:"

// Deployment is what docker-compose.yml says of the Temporal server.
type Deployment struct {
	// ServerVersion is the auto-setup image's tag, such as "1.29.1".
	ServerVersion string
	// Env is the temporal service's environment, which the server's
	// config template reads (DB, NUM_HISTORY_SHARDS, POSTGRES_USER, ...).
	Env map[string]string
	// DynamicConfig is the host path of the dynamic config file the
	// service mounts at DYNAMIC_CONFIG_FILE_PATH.
	DynamicConfig string
}

// ReadDeployment reads the temporal service of the compose file at path.
func ReadDeployment(path string) (*Deployment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the deployment: %w", err)
	}
	return parseDeployment(path, data)
}

func parseDeployment(path string, data []byte) (*Deployment, error) {
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	svc, ok := compose.Services["temporal"]
	if !ok {
		return nil, fmt.Errorf("%s: no service named temporal", path)
	}
	version, ok := strings.CutPrefix(svc.Image, serverImage)
	if !ok || version == "" {
		return nil, fmt.Errorf("%s: services.temporal.image is %q, want %s<version>", path, svc.Image, serverImage)
	}
	d := &Deployment{ServerVersion: version, Env: svc.Environment}
	if d.Env["DB"] != "postgres12" {
		return nil, fmt.Errorf("%s: services.temporal.environment.DB is %q; the cluster tests run PostgreSQL (postgres12)", path, d.Env["DB"])
	}
	target := d.Env["DYNAMIC_CONFIG_FILE_PATH"]
	if target == "" {
		return nil, fmt.Errorf("%s: services.temporal.environment has no DYNAMIC_CONFIG_FILE_PATH", path)
	}
	for _, v := range svc.Volumes {
		host, rest, _ := strings.Cut(v, ":")
		if mounted, _, _ := strings.Cut(rest, ":"); mounted == target {
			d.DynamicConfig = filepath.Join(filepath.Dir(path), host)
		}
	}
	if d.DynamicConfig == "" {
		return nil, fmt.Errorf("%s: no volume of services.temporal mounts DYNAMIC_CONFIG_FILE_PATH (%s)", path, target)
	}
	return d, nil
}
