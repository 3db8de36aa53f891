package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The config template is rendered as the auto-setup image renders it:
// default takes the value first, a variable not set is empty.
func TestRenderConfigAsTheImageDoes(t *testing.T) {
	tmpl := `shards: {{ default .Env.NUM_HISTORY_SHARDS "4" }}
level: {{ default .Env.LOG_LEVEL "info" }}
{{- $es := default .Env.ENABLE_ES "false" | lower }}
es: {{ $es }}
hosts:{{ range split .Env.HOSTS "," }} [{{ trim . }}]{{ end }}
unset: "{{ .Env.NOT_SET }}"
`
	out, err := renderConfig([]byte(tmpl), map[string]string{"NUM_HISTORY_SHARDS": "8", "ENABLE_ES": "FALSE", "HOSTS": "a, b"})
	require.NoError(t, err)
	require.Equal(t, "shards: 8\nlevel: info\nes: false\nhosts: [a] [b]\nunset: \"\"\n", string(out))

	_, err = renderConfig([]byte("{{ .Env.X"), nil)
	require.ErrorContains(t, err, "the server's config template")
}

// Ours overrides only what one machine needs; the rest is the compose
// file's.
func TestServerEnvKeepsTheDeploymentsSettings(t *testing.T) {
	d := &Deployment{Env: map[string]string{"DB": "postgres12", "NUM_HISTORY_SHARDS": "4", "POSTGRES_SEEDS": "postgresql", "DB_PORT": "5432",
		"VISIBILITY_POSTGRES_SEEDS": "vis", "PROMETHEUS_ENDPOINT": "0.0.0.0:8000", "PPROF_PORT": "7936", "USE_INTERNAL_FRONTEND": "true"}}
	pg := &Postgres{Host: "127.0.0.1", Port: 25432, User: "temporal", Password: "pw"}
	env := serverEnv(d, pg, "/tmp/dc.yaml", map[string]int{"FRONTEND_GRPC_PORT": 27233})
	require.Equal(t, "postgres12", env["DB"])
	require.Equal(t, "4", env["NUM_HISTORY_SHARDS"])
	for _, k := range []string{"POSTGRES_SEEDS", "VISIBILITY_POSTGRES_SEEDS", "BIND_ON_IP"} {
		require.Equal(t, "127.0.0.1", env[k], k)
	}
	require.Equal(t, "25432", env["DB_PORT"])
	require.Equal(t, "25432", env["VISIBILITY_DB_PORT"])
	require.Equal(t, "pw", env["VISIBILITY_POSTGRES_PWD"])
	require.Equal(t, "27233", env["FRONTEND_GRPC_PORT"])
	require.Equal(t, "/tmp/dc.yaml", env["DYNAMIC_CONFIG_FILE_PATH"])
	for _, k := range notOnOneMachine {
		require.NotContains(t, env, k, "a fixed port two clusters would share")
	}
	require.Equal(t, "postgresql", d.Env["POSTGRES_SEEDS"], "the deployment itself is not changed")
}

// A server binary of another release than the compose file pins, or none,
// is refused before anything starts, saying how to get the pinned one.
func TestCheckVersion(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho 'temporal version 1.28.0'\n"), 0o755))
	require.NoError(t, checkVersion(context.Background(), bin, "1.28.0"))
	err := checkVersion(context.Background(), bin, "1.29.1")
	require.EqualError(t, err, bin+" is Temporal server 1.28.0, but docker-compose.yml pins 1.29.1: make cluster-tools installs the pinned one into bin/cluster-v1.29.1")
	err = checkVersion(context.Background(), filepath.Join(dir, "missing"), "1.29.1")
	require.ErrorContains(t, err, "no Temporal server at "+filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "make cluster-tools installs the release docker-compose.yml pins into bin/cluster-v1.29.1")
}

func TestFreePortsFitTheMembershipColumnAndNeverRepeat(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		port, err := freePort()
		require.NoError(t, err)
		require.Less(t, port, 32768, "membership ports are kept in a smallint")
		require.GreaterOrEqual(t, port, 20000)
		require.False(t, seen[port], "port %d handed out twice", port)
		seen[port] = true
	}
}
