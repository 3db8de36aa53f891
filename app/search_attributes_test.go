package app

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// refreshingServer refuses queries naming the search attributes until
// it has been asked `refusals` times, as a cluster does until its next
// namespace cache refresh.
type refreshingServer struct {
	client.Client
	refusals, asked int
	err             error
}

func (s *refreshingServer) CountWorkflow(context.Context, *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	s.asked++
	if s.err != nil {
		return nil, s.err
	}
	if s.asked <= s.refusals {
		return nil, serviceerror.NewInvalidArgument("Namespace fresh has no mapping defined for search attribute AgentName")
	}
	return &workflowservice.CountWorkflowExecutionsResponse{}, nil
}

func TestTheWorkerWaitsUntilNewSearchAttributesAreUsable(t *testing.T) {
	var said bytes.Buffer
	srv := &refreshingServer{refusals: 3}
	require.NoError(t, waitSearchAttributesUsable(context.Background(), srv, "fresh", &said))
	require.Equal(t, 4, srv.asked)
	require.Contains(t, said.String(), "waiting for namespace fresh to take its new search attributes")

	said.Reset()
	ready := &refreshingServer{}
	require.NoError(t, waitSearchAttributesUsable(context.Background(), ready, "default", &said))
	require.Equal(t, 1, ready.asked)
	require.Empty(t, said.String(), "nothing said when nothing is waited for")

	down := &refreshingServer{err: errors.New("connection refused")}
	require.ErrorContains(t, waitSearchAttributesUsable(context.Background(), down, "default", nil), `check the search attributes of namespace "default": connection refused`)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := &refreshingServer{refusals: 1 << 30}
	require.ErrorContains(t, waitSearchAttributesUsable(ctx, never, "fresh", nil), "waiting for its new search attributes")
}
