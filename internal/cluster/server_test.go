package cluster

import (
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
	d := &Deployment{Env: map[string]string{"DB": "postgres12", "NUM_HISTORY_SHARDS": "4", "POSTGRES_SEEDS": "postgresql", "DB_PORT": "5432"}}
	pg := &Postgres{Host: "127.0.0.1", Port: 25432, User: "temporal", Password: "pw"}
	env := serverEnv(d, pg, "/tmp/dc.yaml", map[string]int{"FRONTEND_GRPC_PORT": 27233})
	require.Equal(t, "postgres12", env["DB"])
	require.Equal(t, "4", env["NUM_HISTORY_SHARDS"])
	require.Equal(t, "127.0.0.1", env["POSTGRES_SEEDS"])
	require.Equal(t, "25432", env["DB_PORT"])
	require.Equal(t, "27233", env["FRONTEND_GRPC_PORT"])
	require.Equal(t, "/tmp/dc.yaml", env["DYNAMIC_CONFIG_FILE_PATH"])
	require.Equal(t, "127.0.0.1", env["BIND_ON_IP"])
	require.Equal(t, "postgresql", d.Env["POSTGRES_SEEDS"], "the deployment itself is not changed")
}

func TestFreePortsFitTheMembershipColumn(t *testing.T) {
	for range 20 {
		port, err := freePort()
		require.NoError(t, err)
		require.Less(t, port, 32768, "membership ports are kept in a smallint")
		require.GreaterOrEqual(t, port, 20000)
	}
}
