package activities

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/config"
)

// The workflow execution the test activity environment reports to
// activity.GetInfo.
const (
	testWorkflowID = "default-test-workflow-id"
	testRunID      = "default-test-run-id"
)

// newActivityEnv is a test activity environment with acts registered.
func newActivityEnv(t *testing.T, acts *Activities) *testsuite.TestActivityEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(testLogger{t})
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	return env
}

// newTestActivities is an activity set with no config, no querier and no
// environment variables.
func newTestActivities() *Activities {
	acts := New(&config.File{}, nil)
	acts.getenv = func(string) (string, bool) { return "", false }
	return acts
}

// toolCase is a call of a tool the test defines: runTool puts the tool in
// the worker's config and sends the activity its name, as the workflow does.
type toolCase struct {
	CallID string
	Tool   config.Tool
	Args   json.RawMessage
}

// runTool runs RunTool in a test activity environment: the result on
// success, else the error.
func runTool(t *testing.T, c toolCase) (json.RawMessage, error) {
	t.Helper()
	acts := newTestActivities()
	acts.config.Tools = []config.Tool{c.Tool}
	env := newActivityEnv(t, acts)
	val, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: c.CallID, Tool: ToolRef{Name: c.Tool.Name}, Args: c.Args})
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	require.NoError(t, val.Get(&out))
	return out, nil
}

// appError is the application error inside an activity error.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	require.Error(t, err)
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae), "not an application error: %v", err)
	return ae
}

// requireClass checks an activity error's type (its class) and whether
// Temporal may retry it.
func requireClass(t *testing.T, err error, class string, retryable bool) *temporal.ApplicationError {
	t.Helper()
	ae := appError(t, err)
	require.Equal(t, class, ae.Type(), "error: %v", err)
	require.Equal(t, !retryable, ae.NonRetryable(), "error: %v", err)
	return ae
}

// httpTool is a tool reached at url with method.
func httpTool(name, method, url string) config.Tool {
	return config.Tool{Name: name, HTTP: &config.HTTPTool{Method: method, URL: url}}
}

// seen is one request a tool server received.
type seen struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

// toolServer is a loopback HTTP tool server answering with handle and
// keeping what it was sent.
type toolServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newToolServer(t *testing.T, handle http.HandlerFunc) *toolServer {
	t.Helper()
	ts := &toolServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts.mu.Lock()
		ts.reqs = append(ts.reqs, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		ts.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *toolServer) requests() []seen {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]seen(nil), ts.reqs...)
}

// answer is a handler answering status with body and headers in pairs.
func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// refusedAddr is a loopback address nothing listens on.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// testLogger sends the SDK's log lines to the test log.
type testLogger struct{ t *testing.T }

func (l testLogger) Debug(string, ...any)        {}
func (l testLogger) Info(string, ...any)         {}
func (l testLogger) Warn(msg string, kv ...any)  { l.t.Logf("WARN %s %v", msg, kv) }
func (l testLogger) Error(msg string, kv ...any) { l.t.Logf("ERROR %s %v", msg, kv) }
