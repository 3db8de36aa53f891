package cluster

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// serverImage is the image the compose file's temporal service runs; its
// tag is the server version everything else follows.
const serverImage = "temporalio/auto-setup:"

// imageWorkDir is the auto-setup image's working directory, against which
// the server reads a relative DYNAMIC_CONFIG_FILE_PATH.
const imageWorkDir = "/etc/temporal"

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

// composeEnv is a service's environment in either of compose's forms: a
// map, or a list of KEY=VALUE.
type composeEnv map[string]string

func (e *composeEnv) UnmarshalYAML(n *yaml.Node) error {
	m := map[string]string{}
	if n.Kind == yaml.SequenceNode {
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
	} else if err := n.Decode(&m); err != nil {
		return err
	}
	*e = m
	return nil
}

func parseDeployment(file string, data []byte) (*Deployment, error) {
	var compose struct {
		Services map[string]struct {
			Image       string     `yaml:"image"`
			Environment composeEnv `yaml:"environment"`
			Volumes     []any      `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	svc, ok := compose.Services["temporal"]
	if !ok {
		return nil, fmt.Errorf("%s: no service named temporal", file)
	}
	version, ok := strings.CutPrefix(svc.Image, serverImage)
	if !ok || version == "" {
		return nil, fmt.Errorf("%s: services.temporal.image is %q, want %s<version>", file, svc.Image, serverImage)
	}
	d := &Deployment{ServerVersion: version, Env: svc.Environment}
	if d.Env["DB"] != "postgres12" {
		return nil, fmt.Errorf("%s: services.temporal.environment.DB is %q; the cluster tests run PostgreSQL (postgres12)", file, d.Env["DB"])
	}
	target := d.Env["DYNAMIC_CONFIG_FILE_PATH"]
	if target == "" {
		return nil, fmt.Errorf("%s: services.temporal.environment has no DYNAMIC_CONFIG_FILE_PATH", file)
	}
	if !path.IsAbs(target) {
		target = path.Join(imageWorkDir, target)
	}
	for i, v := range svc.Volumes {
		spec, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: services.temporal.volumes[%d] is in compose's long form; write it source:target", file, i)
		}
		host, rest, _ := strings.Cut(spec, ":")
		mounted, _, _ := strings.Cut(rest, ":")
		// The file itself, or a directory holding it.
		inside, ok := strings.CutPrefix(target, strings.TrimSuffix(mounted, "/")+"/")
		if mounted == target {
			inside, ok = "", true
		}
		if !ok {
			continue
		}
		if !filepath.IsAbs(host) {
			host = filepath.Join(filepath.Dir(file), host)
		}
		d.DynamicConfig = filepath.Join(host, filepath.FromSlash(inside))
	}
	if d.DynamicConfig == "" {
		return nil, fmt.Errorf("%s: no volume of services.temporal mounts DYNAMIC_CONFIG_FILE_PATH (%s)", file, target)
	}
	return d, nil
}
