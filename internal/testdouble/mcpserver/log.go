package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IdempotencyKeyMeta is the _meta key under which unstuck sends a call's idempotency key.
const IdempotencyKeyMeta = "dev.unstuck/idempotency-key"

// LogLine is what the double writes, one JSON line per tools/call, when it is received
// (before the tool runs, so a call that crashes the process is logged too).
type LogLine struct {
	Tool           string          `json:"tool"`
	Args           json.RawMessage `json:"args"`
	IdempotencyKey string          `json:"idempotency_key"`
	PID            int             `json:"pid"`
	// InFlight counts the calls running in this server when this one arrived, itself
	// included: above 1 means calls overlapped.
	InFlight int `json:"in_flight"`
}

type callLog struct {
	mu       sync.Mutex
	w        io.Writer
	inFlight int
}

func newCallLog(w io.Writer) *callLog { return &callLog{w: w} }

// start records a call and returns the function that marks it finished.
func (l *callLog) start(line LogLine) (done func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight++
	line.InFlight = l.inFlight
	line.PID = os.Getpid()
	if l.w != nil {
		b, _ := json.Marshal(line)
		// A file opened with O_APPEND gets each line in one write, so lines from
		// different processes (before and after a restart) do not interleave.
		_, _ = l.w.Write(append(b, '\n'))
	}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.inFlight--
	}
}

// logCalls is a receiving middleware: it sees every tools/call, including those for unknown
// tools or with arguments the tool will reject.
func logCalls(l *callLog) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			params, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if method != "tools/call" || !ok {
				return next(ctx, method, req)
			}
			key, _ := params.Meta[IdempotencyKeyMeta].(string)
			done := l.start(LogLine{Tool: params.Name, Args: params.Arguments, IdempotencyKey: key})
			defer done()
			return next(ctx, method, req)
		}
	}
}

// ReadLog reads the lines a double wrote to its Log (blank text: none).
func ReadLog(text string) ([]LogLine, error) {
	var out []LogLine
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		var l LogLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, fmt.Errorf("log line %q: %w", line, err)
		}
		out = append(out, l)
	}
	return out, nil
}
