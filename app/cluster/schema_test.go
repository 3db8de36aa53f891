package cluster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.18", "1.18", 0},
		{"1.9", "1.18", -1}, // as numbers, not text
		{"1.18", "1.9", 1},
		{"1.18", "1.18.0", 0},
		{"2.0", "1.99", 1},
		{"1.17", "1.18", -1},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, compareVersions(tt.a, tt.b), "%s vs %s", tt.a, tt.b)
	}
}

func TestSchemaCurrent(t *testing.T) {
	require.NoError(t, schemaCurrent("temporal", "h:1", "1.18", "1.18", "1.29.1", "fix"))
	require.NoError(t, schemaCurrent("temporal", "h:1", "1.19", "1.18", "1.29.1", "fix"), "a newer schema is the server's business")
	err := schemaCurrent("temporal", "h:1", "1.9", "1.18", "1.29.1", "sql ... update-schema -d dir")
	require.EqualError(t, err, "database temporal on h:1 has schema version 1.9, older than the 1.18 that Temporal server 1.29.1 needs: "+
		"the server would refuse to start. Update it: sql ... update-schema -d dir")
}

func TestNewestSchema(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"v1.0", "v1.9", "v1.18", "v1.2"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, v), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "v9.9"), nil, 0o644)) // a file, not a version
	got, err := newestSchema(dir)
	require.NoError(t, err)
	require.Equal(t, "1.18", got)

	versions, err := SchemaVersions(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"1.0", "1.2", "1.9", "1.18"}, versions, "lowest first, as numbers")

	_, err = newestSchema(t.TempDir())
	require.ErrorContains(t, err, "no versioned schema in")
	_, err = newestSchema(filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "make cluster-tools copies them beside the server")
}

func TestDatabasesAreNamedAsTheTemplateNamesThem(t *testing.T) {
	require.Equal(t, []database{{"temporal", "temporal"}, {"temporal_visibility", "visibility"}}, databases(nil))
	require.Equal(t, []database{{"t", "temporal"}, {"v", "visibility"}}, databases(map[string]string{"DBNAME": "t", "VISIBILITY_DBNAME": "v"}))
}
