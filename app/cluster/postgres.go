package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/unstuck-dev/unstuck/internal/child"
)

// Postgres is a PostgreSQL server the cluster keeps its databases in:
// one of our own (started from Debian's programs into a temporary
// directory) or one already running (UNSTUCK_CLUSTER_POSTGRES).
type Postgres struct {
	Host           string
	Port           int
	User, Password string
	// bin is the directory of PostgreSQL's programs. For a server of our
	// own, dir holds its files and server is its process, which Stop ends.
	bin, dir string
	server   *child.Process
	as       *syscall.Credential
	stopOnce sync.Once
	stopErr  error
}

// Addr is host:port.
func (p *Postgres) Addr() string { return net.JoinHostPort(p.Host, strconv.Itoa(p.Port)) }

// errNoPostgres says how to get PostgreSQL's server programs.
var errNoPostgres = errors.New("PostgreSQL's server programs (initdb, postgres) are not installed: " +
	"install Debian's postgresql package (apt-get install postgresql; make test does it when run as root), " +
	"or set UNSTUCK_POSTGRES_BIN to the directory that has them")

// postgresBin finds the directory of initdb and postgres: UNSTUCK_POSTGRES_BIN,
// else pg_ctl's on PATH (following a symlink to the versioned directory),
// else Debian's newest /usr/lib/postgresql/<major>/bin.
func postgresBin() (string, error) {
	if dir := os.Getenv("UNSTUCK_POSTGRES_BIN"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
			return "", fmt.Errorf("UNSTUCK_POSTGRES_BIN=%s has no postgres: %w", dir, err)
		}
		return dir, nil
	}
	if path, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "initdb")); err == nil {
			return filepath.Dir(path), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) < majorOf(dirs[j]) })
	if len(dirs) > 0 {
		return filepath.Dir(dirs[len(dirs)-1]), nil
	}
	return "", errNoPostgres
}

// majorOf is the major version in /usr/lib/postgresql/<major>/bin/postgres.
func majorOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// StartPostgres starts a PostgreSQL of our own on a free loopback port,
// with user and password, its files in a new temporary directory that
// Stop removes. It runs as a child of this process, which it does not
// outlive (a test killed mid-run leaves no server behind); as root it
// runs as the postgres user, since PostgreSQL refuses root. It trades
// durability for speed (no fsync): its data is thrown away.
func StartPostgres(ctx context.Context, user, password string) (p *Postgres, err error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	p = &Postgres{Host: "127.0.0.1", User: user, Password: password, bin: bin}
	if p.as, err = postgresUser(); err != nil {
		return nil, err
	}
	if p.Port, err = freePort(); err != nil {
		return nil, err
	}
	if p.dir, err = ownedTempDir("unstuck-postgres-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = p.Stop()
		}
	}()
	dataDir := filepath.Join(p.dir, "data")
	pwfile := filepath.Join(p.dir, "password")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return p, err
	}
	if err := p.give(p.dir, pwfile); err != nil {
		return p, err
	}
	initdb := p.command(ctx, "initdb", "-D", dataDir, "-U", user, "--pwfile", pwfile,
		"--auth", "scram-sha-256", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return p, fmt.Errorf("initdb %s: %w\n%s", dataDir, err, out)
	}
	// TCP on loopback only: no Unix socket (its path could be too long).
	server := p.command(context.Background(), "postgres", "-D", dataDir, "-p", strconv.Itoa(p.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	// Fast shutdown (SIGINT): its SIGTERM waits for every client to leave.
	if p.server, err = child.Start(server, filepath.Join(p.dir, "postgres.log"), child.Options{Quit: syscall.SIGINT, Grace: 15 * time.Second}); err != nil {
		return p, fmt.Errorf("start PostgreSQL: %w", err)
	}
	if err := p.waitReady(ctx); err != nil {
		return p, err
	}
	return p, nil
}

// waitReady waits until the server answers a query, or exits.
func (p *Postgres) waitReady(ctx context.Context) error {
	for {
		_, err := p.psql(ctx, "postgres", "SELECT 1")
		if err == nil {
			return nil
		}
		select {
		case <-p.server.Exited():
			return fmt.Errorf("PostgreSQL exited while starting:\n%s", p.server.Tail(10))
		case <-ctx.Done():
			return fmt.Errorf("PostgreSQL on %s did not answer: %w\n%s", p.Addr(), err, p.server.Tail(10))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ExistingPostgres is a PostgreSQL already running at addr, which must
// answer. Only its client, psql, is needed here.
func ExistingPostgres(ctx context.Context, addr, user, password string) (*Postgres, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("UNSTUCK_CLUSTER_POSTGRES=%q: want host:port: %w", addr, err)
	}
	p := &Postgres{Host: host, User: user, Password: password}
	if p.Port, err = strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("UNSTUCK_CLUSTER_POSTGRES=%q: the port is not a number", addr)
	}
	if err := CheckReachable(ctx, p.Addr()); err != nil {
		return nil, err
	}
	psql, err := exec.LookPath("psql")
	if err != nil {
		return nil, fmt.Errorf("psql, PostgreSQL's client, is not installed: install Debian's postgresql-client: %w", err)
	}
	p.bin = filepath.Dir(psql)
	return p, nil
}

// CheckReachable says whether PostgreSQL answers at addr, and what to do
// when it does not.
func CheckReachable(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("PostgreSQL at %s is not reachable (%v): the Temporal server cannot start without its database. "+
			"Start PostgreSQL (Debian: pg_ctlcluster <version> main start), check the address, or unset UNSTUCK_CLUSTER_POSTGRES to let the tests start one of their own", addr, err)
	}
	return conn.Close()
}

// Stop stops a PostgreSQL of our own and removes its files; one already
// running is left alone. Stopping twice is stopping once.
func (p *Postgres) Stop() error {
	p.stopOnce.Do(func() {
		if p.server != nil {
			p.stopErr = p.server.Stop()
		}
		if p.dir != "" {
			p.stopErr = errors.Join(p.stopErr, os.RemoveAll(p.dir))
		}
	})
	return p.stopErr
}

// command is one of PostgreSQL's programs, run as the postgres user when
// we are root, from its own directory.
func (p *Postgres) command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(p.bin, program), args...)
	cmd.Dir = p.dir
	// A locale the machine lacks would make initdb refuse.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.as}
	return cmd
}

// postgresUser is who PostgreSQL runs as: ourselves, or the postgres user
// when we are root (nil: ourselves).
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL must run as another user, and there is no user postgres (Debian's postgresql package creates it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// give makes paths the postgres user's when PostgreSQL runs as it.
func (p *Postgres) give(paths ...string) error {
	if p.as == nil {
		return nil
	}
	for _, path := range paths {
		if err := os.Chown(path, int(p.as.Uid), int(p.as.Gid)); err != nil {
			return err
		}
	}
	return nil
}

// psql runs one query on database db and returns its output, trimmed.
func (p *Postgres) psql(ctx context.Context, db, query string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(p.bin, "psql"), "-h", p.Host, "-p", strconv.Itoa(p.Port),
		"-U", p.User, "-d", db, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+p.Password, "PGCONNECT_TIMEOUT=5")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql %s on %s: %w: %s", db, p.Addr(), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}
