package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// There is no Docker engine where the tests run, so docker-compose.yml is
// checked for what can be checked: it parses, has the deployment's four
// services, and the worker's image builds from this repository.
func TestComposeFileDescribesTheDeployment(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image   string   `yaml:"image"`
			Build   string   `yaml:"build"`
			Command []string `yaml:"command"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &compose))
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "worker"} {
		require.Contains(t, compose.Services, name)
	}
	require.Equal(t, "temporalio/auto-setup:1.29.1", compose.Services["temporal"].Image)
	require.Equal(t, ".", compose.Services["worker"].Build)
	require.Contains(t, compose.Services["worker"].Command, "--config")
	_, err = os.Stat(filepath.Join(repoRoot, "Dockerfile"))
	require.NoError(t, err)
}
