package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
)

// Defaults of docs/contract.md for reaching Temporal.
const (
	DefaultAddress   = "127.0.0.1:7233"
	DefaultNamespace = "default"
)

// ClientOptions reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, with the
// contract's defaults.
func ClientOptions() client.Options {
	opts := client.Options{HostPort: DefaultAddress, Namespace: DefaultNamespace}
	if v := os.Getenv("TEMPORAL_ADDRESS"); v != "" {
		opts.HostPort = v
	}
	if v := os.Getenv("TEMPORAL_NAMESPACE"); v != "" {
		opts.Namespace = v
	}
	return opts
}

// QuietLogger logs Temporal SDK messages at warn and above, so CLI output
// stays readable.
func QuietLogger() tlog.Logger {
	return tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// SilentLogger logs nothing of the Temporal SDK: for workers whose every
// failure the command reports itself (eval's, whose activities fail on
// purpose: a tool the recording answers with its failure, a model down).
func SilentLogger() tlog.Logger {
	return tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
}

// ConnectError says that Temporal at hostPort could not be reached, and,
// when nothing answered there, what to look at: on a cluster the server
// is down when its database is. A refusal of another kind (a TLS
// certificate, an API key) is said as it is.
func ConnectError(hostPort, namespace string, err error) error {
	err = fmt.Errorf("connect to Temporal at %s (namespace %s): %w", hostPort, namespace, err)
	if !nothingAnswered(err) {
		return err
	}
	return fmt.Errorf("%w: no Temporal server answers there. "+
		"Start one (make demo starts a dev server) or set TEMPORAL_ADDRESS; a cluster's server does not start "+
		"while its PostgreSQL is unreachable or its schema is older than the server needs, and its log says which (docs/cluster.md)", err)
}

// nothingAnswered: the address refused the connection, named no host, or
// stayed silent.
func nothingAnswered(err error) bool {
	var deadline *serviceerror.DeadlineExceeded
	if errors.As(err, &deadline) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var unavailable *serviceerror.Unavailable
	if !errors.As(err, &unavailable) {
		return false
	}
	for _, says := range []string{"connection refused", "no such host", "i/o timeout", "context deadline exceeded"} {
		if strings.Contains(err.Error(), says) {
			return true
		}
	}
	return false
}

// WithDatabaseAdvice adds what to look at to an error the Temporal server
// at hostPort answered as unavailable: a cluster whose database is down
// answers every call that way ("no usable database connection found").
func WithDatabaseAdvice(hostPort string, err error) error {
	var unavailable *serviceerror.Unavailable
	if !errors.As(err, &unavailable) {
		return err
	}
	return fmt.Errorf("%w: the Temporal server at %s answers but cannot serve; on a cluster that is most often its database: "+
		"check that its PostgreSQL is up and reachable from the server, and the server's log (docs/cluster.md)", err, hostPort)
}
