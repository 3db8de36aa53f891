// Package child runs the servers a command or a test starts as its
// children (the demo's Temporal dev server and worker, a test cluster's
// PostgreSQL and Temporal server): their output goes to a log file, they
// end when their parent does, however it ends, and Stop asks them to
// quit before it kills them.
//
// Users: docs/getting-started.md (the demo), docs/cluster.md (the cluster
// tests).
package child
