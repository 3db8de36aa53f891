package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/unstuck-dev/unstuck/config"
)

func TestParseDeployment(t *testing.T) {
	service := func(image, env, volumes string) string {
		return "services:\n  temporal:\n    image: \"" + image + "\"\n    environment:\n" + env + "    volumes:\n" + volumes
	}
	env := "      DB: postgres12\n      DYNAMIC_CONFIG_FILE_PATH: /etc/dc.yaml\n"
	volume := "      - ./deploy/dc.yaml:/etc/dc.yaml:ro\n"
	tests := []struct {
		name, yaml, want, file string
	}{
		{"the deployment", service("temporalio/auto-setup:1.29.1", env, volume), "", "/repo/deploy/dc.yaml"},
		{"environment as a list", service("temporalio/auto-setup:1.29.1", "      - DB=postgres12\n      - DYNAMIC_CONFIG_FILE_PATH=/etc/dc.yaml\n", volume), "", "/repo/deploy/dc.yaml"},
		{"a directory mounted", service("temporalio/auto-setup:1.29.1", "      DB: postgres12\n      DYNAMIC_CONFIG_FILE_PATH: /etc/dc/unstuck.yaml\n", "      - ./deploy/temporal:/etc/dc:ro\n"), "", "/repo/deploy/temporal/unstuck.yaml"},
		{"a relative path, from the image's directory", service("temporalio/auto-setup:1.29.1", "      DB: postgres12\n      DYNAMIC_CONFIG_FILE_PATH: config/dynamicconfig/u.yaml\n", "      - ./u.yaml:/etc/temporal/config/dynamicconfig/u.yaml\n"), "", "/repo/u.yaml"},
		{"an absolute host path", service("temporalio/auto-setup:1.29.1", env, "      - /srv/dc.yaml:/etc/dc.yaml\n"), "", "/srv/dc.yaml"},
		{"no temporal service", "services:\n  other:\n    image: x\n", "no service named temporal", ""},
		{"another image", service("temporalio/server:1.29.1", env, volume), `services.temporal.image is "temporalio/server:1.29.1", want temporalio/auto-setup:<version>`, ""},
		{"no tag", service("temporalio/auto-setup:", env, volume), "want temporalio/auto-setup:<version>", ""},
		{"another database", service("temporalio/auto-setup:1.29.1", "      DB: mysql8\n      DYNAMIC_CONFIG_FILE_PATH: /etc/dc.yaml\n", volume), `DB is "mysql8"`, ""},
		{"no dynamic config", service("temporalio/auto-setup:1.29.1", "      DB: postgres12\n", volume), "no DYNAMIC_CONFIG_FILE_PATH", ""},
		{"not mounted", service("temporalio/auto-setup:1.29.1", env, "      - ./other.yaml:/etc/other.yaml\n"), "no volume of services.temporal mounts DYNAMIC_CONFIG_FILE_PATH (/etc/dc.yaml)", ""},
		{"a volume in the long form", service("temporalio/auto-setup:1.29.1", env, "      - {type: bind, source: ./dc.yaml, target: /etc/dc.yaml}\n"), "services.temporal.volumes[0] is in compose's long form", ""},
		{"not YAML", "services: [", "compose.yml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDeployment("/repo/compose.yml", []byte(tt.yaml))
			if tt.want != "" {
				require.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "1.29.1", d.ServerVersion)
			require.Equal(t, tt.file, d.DynamicConfig)
			require.Equal(t, "postgres12", d.Env["DB"])
		})
	}
}

// The repository's compose file is the cluster's source of truth: it
// parses, and the dynamic config it mounts sets every server setting
// unstuck documents (config.ServerSettings, which the dev servers pass as
// flags), so the deployment, the cluster tests and the dev servers agree.
func TestTheDeploymentSetsTheServerSettings(t *testing.T) {
	d, err := ReadDeployment(filepath.Join("..", "..", "docker-compose.yml"))
	require.NoError(t, err)
	require.Equal(t, "4", d.Env["NUM_HISTORY_SHARDS"])
	data, err := os.ReadFile(d.DynamicConfig)
	require.NoError(t, err)
	var values map[string][]struct {
		Value any `yaml:"value"`
	}
	require.NoError(t, yaml.Unmarshal(data, &values))
	for _, s := range config.ServerSettings {
		got, ok := values[s.Key]
		require.True(t, ok, "%s sets no %s", d.DynamicConfig, s.Key)
		require.Len(t, got, 1)
		require.Equal(t, s.Value, strings.ToLower(yamlScalar(t, got[0].Value)), s.Key)
	}
	require.Len(t, values, len(config.ServerSettings), "a setting in %s that config.ServerSettings does not document", d.DynamicConfig)
}

func yamlScalar(t *testing.T, v any) string {
	t.Helper()
	out, err := yaml.Marshal(v)
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// The tests' own values are added to the deployment's, which stay.
func TestWriteDynamicConfigAddsTheTestsValues(t *testing.T) {
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared.yaml")
	require.NoError(t, os.WriteFile(shared, []byte("system.enableActivityEagerExecution:\n  - value: true\n"), 0o644))
	out := filepath.Join(dir, "out.yaml")
	require.NoError(t, writeDynamicConfig(shared, out, map[string]any{"limit.historyCount.suggestContinueAsNew": 150}))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var values map[string][]map[string]any
	require.NoError(t, yaml.Unmarshal(data, &values))
	require.Equal(t, true, values["system.enableActivityEagerExecution"][0]["value"])
	require.Equal(t, 150, values["limit.historyCount.suggestContinueAsNew"][0]["value"])

	require.ErrorContains(t, writeDynamicConfig(filepath.Join(dir, "missing.yaml"), out, nil), "the deployment's dynamic config")
}

// SQL visibility, which the deployment runs, refuses GROUP BY on custom
// search attributes (the dev server's SQLite takes it): no visibility
// query of unstuck may use it. The cluster tests run the queries unstuck
// makes; this keeps a new one from needing it unseen.
func TestNoVisibilityQueryGroupsBy(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "bin" || strings.HasPrefix(e.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		require.NotContains(t, strings.ToUpper(string(data)), "GROUP BY", "%s: SQL visibility refuses GROUP BY on custom search attributes", path)
		return nil
	})
	require.NoError(t, err)
}
