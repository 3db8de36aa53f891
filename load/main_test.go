package load

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// devClient is a client of the real dev server (bin/temporal) the tests
// share; each test isolates itself on its own task queue.
var devClient client.Client

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := testutil.StartDevServer(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	defer func() { _ = srv.Stop() }()
	devClient = srv.Client()
	return m.Run()
}
