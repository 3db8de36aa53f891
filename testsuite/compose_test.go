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
// services, the worker's image builds from this repository with its build
// id stamped and runs as a version of the deployment "unstuck", and the
// console, which listens beyond loopback inside the network, cannot start
// without a token.
func TestComposeFileDescribesTheDeployment(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image string `yaml:"image"`
			Build struct {
				Context string            `yaml:"context"`
				Args    map[string]string `yaml:"args"`
			} `yaml:"build"`
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
	worker := compose.Services["worker"]
	require.Equal(t, ".", worker.Build.Context)
	require.Contains(t, worker.Command, "--config")
	// A version of a worker deployment, its build id stamped at build time.
	require.Equal(t, "unstuck", worker.Environment["UNSTUCK_DEPLOYMENT_NAME"])
	require.Equal(t, "${UNSTUCK_BUILD_ID:-}", worker.Build.Args["BUILD_ID"])
	require.NotContains(t, worker.Environment, "UNSTUCK_BUILD_ID", "the id is the image's, not the environment's")
	console := compose.Services["console"]
	require.Equal(t, worker.Build, console.Build, "one image for both")
	require.Equal(t, []string{"/usr/local/bin/unstuck", "console", "--listen", "0.0.0.0:8234"}, console.Entrypoint)
	require.Regexp(t, `^\$\{UNSTUCK_CONSOLE_TOKEN:\?`, console.Environment["UNSTUCK_CONSOLE_TOKEN"], "the token is required")
	require.Equal(t, []string{"127.0.0.1:8234:8234"}, console.Ports)
	dockerfile, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	require.NoError(t, err)
	require.Contains(t, string(dockerfile), "unstuck/app.stampedBuildID=$BUILD_ID")
	require.Contains(t, string(dockerfile), `test -n "$BUILD_ID" ||`, "a build without an id is refused")
}
