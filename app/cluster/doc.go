// Package cluster starts a real Temporal cluster on this machine the way
// docker-compose.yml deploys one. It runs the pinned Temporal server (built
// with go install, not the CLI's dev server) on PostgreSQL, its schemas set
// up with the server's SQL tool, the compose file's history shards, SQL
// visibility, and the deployment's dynamic config. Its servers are children
// of the process that starts them and die with it. `make test-cluster` and
// the cluster part of `make test` run the integration tests against it.
//
// Users: docs/cluster.md.
//
// docker-compose.yml is the one source of truth: the server's version is
// its auto-setup image's tag, the server's environment (database plugin,
// shards, dynamic config file) is its temporal service's, and the server's
// config is rendered from the same template the image renders. Only what
// must differ on one machine differs: loopback ports of our choosing and a
// PostgreSQL of our own (or UNSTUCK_CLUSTER_POSTGRES).
//
// Bad input says what is wrong and how to fix it: PostgreSQL missing or
// unreachable, a database whose schema is older than the server needs, a
// server binary of another version than the compose file pins.
package cluster
