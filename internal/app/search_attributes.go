package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
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
	if len(missing) == 0 {
		return nil
	}
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	}); err != nil {
		// Another worker starting at the same time may have added them.
		var exists *serviceerror.AlreadyExists
		if errors.As(err, &exists) {
			return nil
		}
		return fmt.Errorf("add search attributes %v to namespace %q: %w", keys(missing), namespace, err)
	}
	return nil
}

func keys(m map[string]enumspb.IndexedValueType) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
