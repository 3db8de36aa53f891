package workflows

import (
	"maps"
	"slices"
)

// sortedIDs are a map's keys in order, for code whose commands or carried
// state must not depend on the map's order.
func sortedIDs[V any](m map[string]V) []string {
	// Sorted: the map's order does not reach the result.
	//workflowcheck:ignore
	return slices.Sorted(maps.Keys(m))
}
