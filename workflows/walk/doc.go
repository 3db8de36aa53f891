// Package walk is where a graph run is in its walk, as the run carries it:
// the node it is at, the node a rollback or an edit picks the next edge
// from, how often each node was visited, and the edges a rollback
// excluded. It holds only that record (workflows.Run embeds Walk as
// GraphWalk, its JSON unchanged), so the parts that keep a copy of it or
// put one back (an edit's checkpoints, workflows/edit) need not import
// workflows; walking the graph is workflows/graph.go's.
package walk
