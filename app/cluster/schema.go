package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A Temporal cluster on PostgreSQL keeps two databases, each with its own
// versioned schema in the server's release (schema/postgresql/v12/...).
type database struct {
	Name   string // temporal, temporal_visibility
	Schema string // the directory under schema/postgresql/v12
}

// databases are the deployment's two databases, named as its config
// template names them (DBNAME, VISIBILITY_DBNAME).
func databases(env map[string]string) []database {
	name := func(key, fallback string) string {
		if v := env[key]; v != "" {
			return v
		}
		return fallback
	}
	return []database{
		{Name: name("DBNAME", "temporal"), Schema: "temporal"},
		{Name: name("VISIBILITY_DBNAME", "temporal_visibility"), Schema: "visibility"},
	}
}

// schemaTool runs the server's SQL tool on one PostgreSQL.
type schemaTool struct {
	tool    string // the sql binary
	schemas string // .../schema/postgresql/v12
	pg      *Postgres
}

func (s schemaTool) versionedDir(db database) string {
	return filepath.Join(s.schemas, db.Schema, "versioned")
}

// setUp creates db and brings its schema to the newest version of the
// server's release, as the compose file's auto-setup image does.
func (s schemaTool) setUp(ctx context.Context, db database) error {
	steps := [][]string{
		{"create-database"},
		{"setup-schema", "-v", "0.0"},
		{"update-schema", "-d", s.versionedDir(db)},
	}
	for _, step := range steps {
		if err := s.run(ctx, db.Name, step...); err != nil {
			return err
		}
	}
	return nil
}

func (s schemaTool) run(ctx context.Context, db string, args ...string) error {
	argv := append([]string{"--plugin", "postgres12", "--ep", s.pg.Host, "-p", strconv.Itoa(s.pg.Port),
		"-u", s.pg.User, "--pw", s.pg.Password, "--db", db}, args...)
	out, err := exec.CommandContext(ctx, s.tool, argv...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("temporal-sql-tool %s on database %s: %w\n%s", args[0], db, err, out)
	}
	return nil
}

// command is the SQL tool's command line that brings db up to date, for
// a message.
func (s schemaTool) command(db database) string {
	return fmt.Sprintf("%s --plugin postgres12 --ep %s -p %d -u %s --pw ... --db %s update-schema -d %s",
		s.tool, s.pg.Host, s.pg.Port, s.pg.User, db.Name, s.versionedDir(db))
}

// check refuses a database whose schema is older than the server needs,
// naming both versions and the command that updates it. A database that
// does not exist yet is set up.
func (s schemaTool) check(ctx context.Context, db database, serverVersion string) error {
	need, err := newestSchema(s.versionedDir(db))
	if err != nil {
		return err
	}
	exists, err := s.pg.psql(ctx, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname = '%s'", db.Name))
	if err != nil {
		return err
	}
	if exists == "0" {
		return s.setUp(ctx, db)
	}
	have, err := s.pg.psql(ctx, db.Name, "SELECT curr_version FROM schema_version")
	if err != nil {
		return fmt.Errorf("database %s on %s has no Temporal schema version (%v): drop it, or set it up with the SQL tool", db.Name, s.pg.Addr(), err)
	}
	return schemaCurrent(db.Name, s.pg.Addr(), have, need, serverVersion, s.command(db))
}

// schemaCurrent is nil when have is at least need, else the error that
// says which and how to fix it.
func schemaCurrent(db, addr, have, need, serverVersion, fix string) error {
	if compareVersions(have, need) >= 0 {
		return nil
	}
	return fmt.Errorf("database %s on %s has schema version %s, older than the %s that Temporal server %s needs: the server would refuse to start. Update it: %s",
		db, addr, have, need, serverVersion, fix)
}

// newestSchema is the highest vX.Y directory of a versioned schema.
func newestSchema(dir string) (string, error) {
	versions, err := SchemaVersions(dir)
	if err != nil {
		return "", err
	}
	return versions[len(versions)-1], nil
}

// SchemaVersions are the versions of a versioned schema directory (its
// vX.Y subdirectories), lowest first.
func SchemaVersions(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the server's schemas: %w (make cluster-tools copies them beside the server)", err)
	}
	var versions []string
	for _, e := range entries {
		if v, ok := strings.CutPrefix(e.Name(), "v"); ok && e.IsDir() {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("no versioned schema in %s", dir)
	}
	sort.Slice(versions, func(i, j int) bool { return compareVersions(versions[i], versions[j]) < 0 })
	return versions, nil
}

// compareVersions compares dotted versions ("1.9" < "1.18") as numbers,
// part by part; a missing part is 0.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := part(as, i), part(bs, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func part(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n, _ := strconv.Atoi(parts[i])
	return n
}
