package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// There is no Docker engine where the tests run, so docker-compose.yml is
// checked for what can be checked: it parses, has the deployment's five
// services, the worker's image builds from this repository, and the
// console, which listens beyond loopback inside the network, cannot start
// without a token.
func TestComposeFileDescribesTheDeployment(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Build       string            `yaml:"build"`
			Command     []string          `yaml:"command"`
			Entrypoint  []string          `yaml:"entrypoint"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &compose))
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "worker", "console"} {
		require.Contains(t, compose.Services, name)
	}
	require.Equal(t, "temporalio/auto-setup:1.29.1", compose.Services["temporal"].Image)
	require.Equal(t, ".", compose.Services["worker"].Build)
	require.Contains(t, compose.Services["worker"].Command, "--config")
	console := compose.Services["console"]
	require.Equal(t, ".", console.Build)
	require.Equal(t, []string{"/usr/local/bin/unstuck", "console", "--listen", "0.0.0.0:8234"}, console.Entrypoint)
	require.Regexp(t, `^\$\{UNSTUCK_CONSOLE_TOKEN:\?`, console.Environment["UNSTUCK_CONSOLE_TOKEN"], "the token is required")
	require.Equal(t, []string{"127.0.0.1:8234:8234"}, console.Ports)
	_, err = os.Stat(filepath.Join(repoRoot, "Dockerfile"))
	require.NoError(t, err)
}
