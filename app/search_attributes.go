package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// SearchAttributes are the custom search attributes runs upsert.
var SearchAttributes = map[string]enumspb.IndexedValueType{
	signals.AttrAgentName:  enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	signals.AttrAgentPhase: enumspb.INDEXED_VALUE_TYPE_KEYWORD,
}

// EnsureSearchAttributes registers the search attributes that are missing
// in the namespace: a run upserting an unknown attribute would fail its
// workflow tasks, so the worker checks before it polls.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes of namespace %q: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, typ := range SearchAttributes {
		got, ok := have.GetCustomAttributes()[name]
		if !ok {
			missing[name] = typ
			continue
		}
		if got != typ {
			return fmt.Errorf("search attribute %s exists in namespace %q as %s, but unstuck needs %s", name, namespace, got, typ)
		}
	}
	if len(missing) > 0 {
		if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace: namespace, SearchAttributes: missing,
		}); err != nil {
			// Another worker starting at the same time may have added them.
			var exists *serviceerror.AlreadyExists
			if !errors.As(err, &exists) {
				return fmt.Errorf("add search attributes %v to namespace %q: %w", keys(missing), namespace, err)
			}
		}
	}
	return waitSearchAttributesUsable(ctx, c, namespace, SearchAttributesProgress)
}

// SearchAttributesProgress gets the line said while the worker waits for
// new search attributes to be usable.
var SearchAttributesProgress io.Writer = os.Stderr

// searchAttributesWait bounds the wait for new search attributes; the
// pause is between two visibility queries.
const (
	searchAttributesWait  = 20 * time.Second
	searchAttributesPause = 200 * time.Millisecond
)

// waitSearchAttributesUsable waits until a visibility query naming the
// search attributes is accepted. A real cluster takes new ones into its
// namespace cache only at its next refresh (every few seconds); a run
// started before then is refused ("no mapping defined for search
// attribute"), so the worker does not poll until they are usable. The
// dev server refreshes on read: the first query is accepted.
func waitSearchAttributesUsable(ctx context.Context, c client.Client, namespace string, progress io.Writer) error {
	query := fmt.Sprintf("%s = 'unstuck-check' AND %s = 'unstuck-check'", signals.AttrAgentName, signals.AttrAgentPhase)
	deadline := time.Now().Add(searchAttributesWait)
	said := false
	for {
		_, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		var invalid *serviceerror.InvalidArgument
		switch {
		case err == nil:
			return nil
		case !errors.As(err, &invalid):
			return fmt.Errorf("check the search attributes of namespace %q: %w", namespace, err)
		case time.Now().After(deadline):
			return fmt.Errorf("namespace %q: the search attributes %s and %s are registered but the server still refuses them after %s (%v): check its namespace cache refresh (dynamic config system.namespaceCacheRefreshInterval)",
				namespace, signals.AttrAgentName, signals.AttrAgentPhase, searchAttributesWait, err)
		}
		if !said && progress != nil {
			fmt.Fprintf(progress, "unstuck: waiting for namespace %s to take its new search attributes (%s, %s): the server refreshes its namespace cache every few seconds\n",
				namespace, signals.AttrAgentName, signals.AttrAgentPhase)
			said = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %q: waiting for its new search attributes: %w", namespace, ctx.Err())
		case <-time.After(searchAttributesPause):
		}
	}
}

func keys(m map[string]enumspb.IndexedValueType) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
