package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/unstuck-dev/unstuck/workflows"
)

// metricName is a metric of this project or of the Temporal SDK in a
// PromQL expression.
var metricName = regexp.MustCompile(`\b(?:unstuck|temporal)_[a-z0-9_]+\b`)

// Every panel of the Grafana dashboards queries counters the worker
// exports (the agent's counters as Prometheus names them, with _total),
// and every agent counter has a panel.
func TestDashboardsQueryTheCountersTheWorkerExports(t *testing.T) {
	t.Parallel()
	exported := map[string]bool{}
	for _, name := range workflows.AgentMetrics {
		exported[name+"_total"] = true
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "deploy", "grafana", "dashboards", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	shown := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var dash struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		require.NoError(t, json.Unmarshal(data, &dash), file)
		require.NotEmpty(t, dash.Panels, file)
		for _, p := range dash.Panels {
			require.NotEmpty(t, p.Targets, "%s: panel %q has no query", file, p.Title)
			for _, target := range p.Targets {
				names := metricName.FindAllString(target.Expr, -1)
				require.NotEmpty(t, names, "%s: panel %q queries no metric: %s", file, p.Title, target.Expr)
				for _, name := range names {
					require.True(t, exported[name], "%s: panel %q queries %s, which the worker does not export", file, p.Title, name)
					shown[name] = true
				}
			}
		}
	}
	for name := range exported {
		require.True(t, shown[name], "no panel shows %s", name)
	}
}

// The observability profile of docker-compose.yml: its services start only
// with --profile observability, from pinned images, with config files that
// exist; the worker serves metrics where Prometheus scrapes them.
func TestComposeObservabilityProfile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Profiles    []string          `yaml:"profiles"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &compose))
	for _, name := range []string{"otel-collector", "prometheus", "grafana"} {
		svc, ok := compose.Services[name]
		require.True(t, ok, "service %s", name)
		require.Equal(t, []string{"observability"}, svc.Profiles, name)
		tag := svc.Image[strings.LastIndex(svc.Image, ":")+1:]
		require.Regexp(t, `^v?[0-9]+\.[0-9]+\.[0-9]+$`, tag, "%s: a pinned image tag", name)
		for _, v := range svc.Volumes {
			if src, ok := strings.CutPrefix(v, "./"); ok {
				_, err := os.Stat(filepath.Join(repoRoot, strings.Split(src, ":")[0]))
				require.NoError(t, err, "%s mounts %s", name, v)
			}
		}
	}
	worker := compose.Services["worker"]
	require.Empty(t, worker.Profiles, "the worker runs without the profile")
	i := slices.Index(worker.Command, "--metrics-listen")
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, "0.0.0.0:9090", worker.Command[i+1])
	require.Contains(t, worker.Environment["OTEL_EXPORTER_OTLP_ENDPOINT"], "otel-collector:4317")

	// Prometheus finds every worker replica (--scale worker=N) by DNS, at
	// the port the worker serves its metrics on.
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "prometheus.yml"))
	require.NoError(t, err)
	var scrape struct {
		ScrapeConfigs []struct {
			DNSSDConfigs []struct {
				Names []string `yaml:"names"`
				Type  string   `yaml:"type"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &scrape))
	require.Len(t, scrape.ScrapeConfigs, 1)
	require.Len(t, scrape.ScrapeConfigs[0].DNSSDConfigs, 1)
	sd := scrape.ScrapeConfigs[0].DNSSDConfigs[0]
	require.Equal(t, []string{"worker"}, sd.Names)
	require.Equal(t, "A", sd.Type)
	require.Equal(t, 9090, sd.Port)
}
