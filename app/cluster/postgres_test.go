package cluster

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckReachableSaysWhatToDo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, CheckReachable(context.Background(), addr))
	require.NoError(t, l.Close())

	err = CheckReachable(context.Background(), addr)
	require.ErrorContains(t, err, "PostgreSQL at "+addr+" is not reachable")
	require.ErrorContains(t, err, "Start PostgreSQL")
}

func TestExistingPostgresRefusesABadAddress(t *testing.T) {
	_, err := ExistingPostgres(context.Background(), "no-port", "u", "p")
	require.ErrorContains(t, err, `UNSTUCK_CLUSTER_POSTGRES="no-port": want host:port`)
	_, err = ExistingPostgres(context.Background(), "h:port", "u", "p")
	require.ErrorContains(t, err, "the port is not a number")
}

func TestMajorOf(t *testing.T) {
	require.Equal(t, 15, majorOf("/usr/lib/postgresql/15/bin/pg_ctl"))
	require.Equal(t, 9, majorOf("/usr/lib/postgresql/9/bin/pg_ctl"))
}
