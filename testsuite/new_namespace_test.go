package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/app/cluster"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/load"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A namespace made a moment ago, as a new user's first: the worker that
// `unstuck load` starts registers the search attributes runs upsert and
// polls only once they can be used, so every run goes through. On a real
// cluster a search attribute is usable only after the server's next
// namespace cache refresh; before the worker waited, this load stopped
// early at its first run ("no mapping defined for search attribute").
//
// It takes about 30 s on the cluster: the worker waits for the server's
// namespace cache, refreshed every few seconds, then 20 runs go through.
func TestLoadOnANewNamespaceRunsThrough(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	began := time.Now()
	out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), "load", "--address", serverAddress, "--namespace", ns,
		"--runs", "20", "--concurrency", "10", "--steps", "2", "--json").Output()
	require.NoError(t, err, "unstuck load on a new namespace:\n%s", out)
	var rep load.Report
	require.NoError(t, json.Unmarshal(out, &rep), string(out))
	require.Empty(t, rep.StoppedEarly)
	require.Equal(t, 20, rep.Completed, "failures: %+v", rep.Failures)
	require.Zero(t, rep.Failed)
	t.Logf("new namespace %s: 20 runs of 2 steps in %s, from registering the search attributes", ns, time.Since(began).Round(time.Millisecond))
}

// The window the worker waits out, measured: search attributes added to a
// new namespace and a run started at once, again and again, until the
// server takes it. The dev server takes it at once (it refreshes on
// read); a cluster after its namespace cache refresh. The run must be
// taken in the end, and its attributes must be the ones added.
func TestSearchAttributesOfANewNamespaceBecomeUsable(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(client.Options{HostPort: serverAddress, Namespace: ns, Logger: testutil.QuietLogger()})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: ns,
		SearchAttributes: map[string]enumspb.IndexedValueType{
			signals.AttrAgentName: enumspb.INDEXED_VALUE_TYPE_KEYWORD, signals.AttrAgentPhase: enumspb.INDEXED_VALUE_TYPE_KEYWORD}})
	require.NoError(t, err)
	added := time.Now()
	refused := 0
	for {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: fmt.Sprintf("window-%d", time.Now().UnixNano()), TaskQueue: "nobody-polls",
			TypedSearchAttributes: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentName).ValueSet("probe")),
		}, workflows.WorkflowName, workflows.AgentInput{Agent: "probe", Task: "probe"})
		if err == nil {
			// Nobody polls its queue: end it.
			require.NoError(t, c.TerminateWorkflow(ctx, run.GetID(), run.GetRunID(), "probe of the search attributes"))
			break
		}
		require.ErrorContains(t, err, "no mapping defined for search attribute", "the only refusal expected is the one the cache refresh ends")
		refused++
		select {
		case <-ctx.Done():
			t.Fatalf("a start on namespace %s was still refused after %s: %v", ns, time.Since(added), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Logf("new namespace %s (cluster: %v): a start right after adding the search attributes was refused %d times, taken after %s",
		ns, onCluster, refused, time.Since(added).Round(time.Millisecond))
}

// newNamespace registers a namespace of the test's own and waits until the
// server serves it.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := fmt.Sprintf("fresh-%d", time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, cluster.RegisterNamespace(ctx, serverAddress, ns))
	return ns
}
