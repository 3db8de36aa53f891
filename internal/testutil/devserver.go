package testutil

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	temporaltest "go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/config"
)

// StartDevServer starts the pinned Temporal CLI's dev server
// (UNSTUCK_TEMPORAL_BIN, else the repository's bin/temporal, which `make
// test` installs) with a client on namespace default that logs only when
// UNSTUCK_TEST_LOGS is set. The error names the binary to install.
func StartDevServer(ctx context.Context) (*temporaltest.DevServer, error) {
	bin := os.Getenv("UNSTUCK_TEMPORAL_BIN")
	if bin == "" {
		_, file, _, _ := runtime.Caller(0)
		bin = filepath.Join(filepath.Dir(file), "..", "..", "bin", "temporal")
	}
	srv, err := temporaltest.StartDevServer(ctx, temporaltest.DevServerOptions{
		ExistingPath: bin, LogLevel: "error",
		ClientOptions: &client.Options{Namespace: "default", Logger: QuietLogger()},
		ExtraArgs:     append(config.DevServerArgs(), strings.Fields(os.Getenv("UNSTUCK_DEV_SERVER_ARGS"))...),
	})
	if err != nil {
		return nil, fmt.Errorf("start the dev server %s: %w (make test and make bench install it)", bin, err)
	}
	return srv, nil
}

// QuietLogger drops the SDK's logs: tests provoke activity errors on
// purpose and assert on them; set UNSTUCK_TEST_LOGS=1 to see them.
func QuietLogger() tlog.Logger {
	level := slog.LevelError + 4
	if os.Getenv("UNSTUCK_TEST_LOGS") != "" {
		level = slog.LevelDebug
	}
	return tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
}
