package load

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	temporaltest "go.temporal.io/sdk/testsuite"
)

// devClient is a client of the real dev server (bin/temporal) the tests
// share; each test isolates itself on its own task queue.
var devClient client.Client

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	bin := os.Getenv("UNSTUCK_TEMPORAL_BIN")
	if bin == "" {
		bin = filepath.Join(filepath.Dir(file), "..", "..", "bin", "temporal")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := slog.LevelError + 4 // quiet unless UNSTUCK_TEST_LOGS is set
	if os.Getenv("UNSTUCK_TEST_LOGS") != "" {
		logs = slog.LevelInfo
	}
	quiet := tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logs})))
	srv, err := temporaltest.StartDevServer(ctx, temporaltest.DevServerOptions{
		ExistingPath: bin, LogLevel: "error",
		ClientOptions: &client.Options{Namespace: "default", Logger: quiet},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: start dev server %s: %v (run `make test`, which installs it)\n", bin, err)
		return 1
	}
	defer func() { _ = srv.Stop() }()
	devClient = srv.Client()
	return m.Run()
}
