package app

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
)

func TestWithDatabaseAdvice(t *testing.T) {
	down := fmt.Errorf("list search attributes: %w", serviceerror.NewUnavailable("GetClusterMetadata operation failed. Error: no usable database connection found"))
	err := WithDatabaseAdvice("127.0.0.1:7233", down)
	require.ErrorContains(t, err, "no usable database connection found")
	require.ErrorContains(t, err, "the Temporal server at 127.0.0.1:7233 answers but cannot serve")
	require.ErrorContains(t, err, "check that its PostgreSQL is up")
	require.ErrorIs(t, err, down)

	other := errors.New("search attribute AgentName exists as Text")
	require.Equal(t, other, WithDatabaseAdvice("h:1", other), "only an unavailable server gets the advice")
}

func TestConnectErrorSaysWhereToLook(t *testing.T) {
	refused := fmt.Errorf("failed reaching server: %w", serviceerror.NewUnavailable(`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`))
	err := ConnectError("127.0.0.1:1", "default", errors.New("connection refused"))
	require.EqualError(t, err, "connect to Temporal at 127.0.0.1:1 (namespace default): connection refused", "not a server's answer: said as it is")
	err = ConnectError("127.0.0.1:1", "default", refused)
	require.EqualError(t, err, "connect to Temporal at 127.0.0.1:1 (namespace default): failed reaching server: connection error: desc = "+
		"\"transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused\": no Temporal server answers there. "+
		"Start one (make demo starts a dev server) or set TEMPORAL_ADDRESS; a cluster's server does not start while its PostgreSQL "+
		"is unreachable or its schema is older than the server needs, and its log says which (docs/cluster.md)")

	// A certificate the server refuses is not a server that is down.
	tls := serviceerror.NewUnavailable("connection error: desc = \"transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority\"")
	err = ConnectError("h:7233", "ns", tls)
	require.NotContains(t, err.Error(), "PostgreSQL")
	require.ErrorContains(t, err, "x509")
}
