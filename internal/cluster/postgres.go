package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Postgres is a PostgreSQL server the cluster keeps its databases in:
// one of our own (started from Debian's programs into a temporary data
// directory) or one already running (UNSTUCK_CLUSTER_POSTGRES).
type Postgres struct {
	Host           string
	Port           int
	User, Password string
	// bin is the directory of the server programs; dataDir is set for a
	// server of our own, which Stop stops.
	bin, dir, dataDir string
	runAs             []string
}

// Addr is host:port.
func (p *Postgres) Addr() string { return net.JoinHostPort(p.Host, strconv.Itoa(p.Port)) }

// errNoPostgres says how to get PostgreSQL's server programs.
var errNoPostgres = errors.New("PostgreSQL's server programs (initdb, pg_ctl) are not installed: " +
	"install Debian's postgresql package (apt-get install postgresql; make test-cluster does it when run as root), " +
	"or set UNSTUCK_POSTGRES_BIN to the directory that has them")

// postgresBin finds the directory of initdb and pg_ctl: UNSTUCK_POSTGRES_BIN,
// else pg_ctl's on PATH (following a symlink to the versioned directory),
// else Debian's newest /usr/lib/postgresql/<major>/bin.
func postgresBin() (string, error) {
	if dir := os.Getenv("UNSTUCK_POSTGRES_BIN"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err != nil {
			return "", fmt.Errorf("UNSTUCK_POSTGRES_BIN=%s has no pg_ctl: %w", dir, err)
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
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) < majorOf(dirs[j]) })
	if len(dirs) > 0 {
		return filepath.Dir(dirs[len(dirs)-1]), nil
	}
	return "", errNoPostgres
}

// majorOf is the major version in /usr/lib/postgresql/<major>/bin/pg_ctl.
func majorOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// StartPostgres starts a PostgreSQL of our own on a free loopback port,
// with user and password, its files in a new temporary directory that
// Stop removes. As root it runs as the postgres user (PostgreSQL refuses
// root). It trades durability for speed (no fsync): its data is thrown
// away.
func StartPostgres(ctx context.Context, user, password string, logs io.Writer) (p *Postgres, err error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	p = &Postgres{Host: "127.0.0.1", User: user, Password: password, bin: bin}
	if p.runAs, err = runAsForRoot(); err != nil {
		return nil, err
	}
	if p.Port, err = freePort(); err != nil {
		return nil, err
	}
	// Its own directory in the system's temporary one, which the postgres
	// user can reach (a test's TempDir is private to us).
	parent, err := os.MkdirTemp("", "unstuck-postgres-")
	if err != nil {
		return nil, err
	}
	p.dir = parent
	defer func() {
		if err != nil {
			_ = os.RemoveAll(parent)
		}
	}()
	p.dataDir = filepath.Join(parent, "postgres")
	pwfile := filepath.Join(parent, "postgres.pw")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.dataDir, 0o700); err != nil {
		return nil, err
	}
	if err := p.own(parent, p.dataDir, pwfile); err != nil {
		return nil, err
	}
	if out, err := p.run(ctx, "initdb", "-D", p.dataDir, "-U", user, "--pwfile", pwfile,
		"--auth", "scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb %s: %w\n%s", p.dataDir, err, out)
	}
	options := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
		p.Port, p.dataDir)
	logFile := filepath.Join(parent, "postgres.log")
	if err := p.own(logFile); err != nil {
		return nil, err
	}
	if out, err := p.run(ctx, "pg_ctl", "-D", p.dataDir, "-l", logFile, "-o", options, "-w", "-t", "60", "start"); err != nil {
		tail, _ := os.ReadFile(logFile)
		return nil, fmt.Errorf("start PostgreSQL on %s: %w\n%s\n%s", p.Addr(), err, out, tail)
	}
	if logs != nil {
		fmt.Fprintf(logs, "cluster: PostgreSQL (%s) on %s, data in %s\n", bin, p.Addr(), p.dataDir)
	}
	return p, nil
}

// ExistingPostgres is a PostgreSQL already running at addr, which must
// answer.
func ExistingPostgres(ctx context.Context, addr, user, password string) (*Postgres, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("UNSTUCK_CLUSTER_POSTGRES=%q: want host:port: %w", addr, err)
	}
	p := &Postgres{Host: host, User: user, Password: password}
	if p.Port, err = strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("UNSTUCK_CLUSTER_POSTGRES=%q: the port is not a number", addr)
	}
	if p.bin, err = postgresBin(); err != nil {
		return nil, err
	}
	return p, CheckReachable(ctx, p.Addr())
}

// CheckReachable says whether PostgreSQL answers at addr, and what to do
// when it does not.
func CheckReachable(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return unreachable(addr, err)
	}
	return conn.Close()
}

// unreachable is the message for a PostgreSQL that does not answer; the
// worker gives the same advice when the server it needs is down.
func unreachable(addr string, err error) error {
	return fmt.Errorf("PostgreSQL at %s is not reachable (%v): the Temporal server cannot start without its database. "+
		"Start PostgreSQL (Debian: pg_ctlcluster <version> main start), check the address, or unset UNSTUCK_CLUSTER_POSTGRES to let the tests start one of their own", addr, err)
}

// Stop stops a PostgreSQL of our own; one already running is left.
func (p *Postgres) Stop() error {
	if p.dataDir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := p.run(ctx, "pg_ctl", "-D", p.dataDir, "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("stop PostgreSQL: %w\n%s", err, out)
	}
	return os.RemoveAll(p.dir)
}

// run runs one of PostgreSQL's programs, as the postgres user when root.
func (p *Postgres) run(ctx context.Context, program string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, p.runAs...), filepath.Join(p.bin, program)), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// initdb looks for its own files beside itself; a locale the machine
	// lacks would make it refuse.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd.CombinedOutput()
}

// runAsForRoot is how to run PostgreSQL's programs: as ourselves, or as
// the postgres user when we are root.
func runAsForRoot() ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if _, err := user.Lookup("postgres"); err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL must run as another user, and there is no user postgres (Debian's postgresql package creates it): %w", err)
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL must run as the user postgres, and runuser is not installed: %w", err)
	}
	return []string{runuser, "-u", "postgres", "--"}, nil
}

// own gives paths to the postgres user when we run PostgreSQL as it.
func (p *Postgres) own(paths ...string) error {
	if p.runAs == nil {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, path := range paths {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				return err
			}
		}
		if err := os.Chown(path, uid, gid); err != nil {
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

// freePort is a loopback port nothing listens on now, below 32768: the
// server keeps its services' membership ports in a smallint column, and
// the kernel's own pick (the ephemeral range) is above it.
func freePort() (int, error) {
	var err error
	for range 100 {
		port := 20000 + rand.IntN(12000)
		var l net.Listener
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			_ = l.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port between 20000 and 32000: %w", err)
}
