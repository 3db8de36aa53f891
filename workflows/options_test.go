package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// A tool's attempts are bounded by its retry policy and each by its
// timeout; nothing bounds the wait in the task queue (a busy worker is
// not a failure).
func TestToolOptionsBoundEachAttemptNotTheWait(t *testing.T) {
	def := toolOptions(config.Tool{Name: "t", Builtin: "echo"})
	require.Equal(t, 35*time.Second, def.StartToCloseTimeout)
	require.Zero(t, def.ScheduleToCloseTimeout, "the wait for a worker is not bounded")
	require.EqualValues(t, 5, def.RetryPolicy.MaximumAttempts, "the default policy's attempts")

	own := toolOptions(config.Tool{Name: "t", HTTP: &config.HTTPTool{Timeout: config.Duration(300 * time.Millisecond)},
		Retry: &config.Retry{InitialInterval: config.Duration(100 * time.Millisecond), Backoff: 2, MaxInterval: config.Duration(150 * time.Millisecond), MaxAttempts: 4}})
	require.Equal(t, 300*time.Millisecond+5*time.Second, own.StartToCloseTimeout)
	require.Zero(t, own.ScheduleToCloseTimeout)
	require.EqualValues(t, 4, own.RetryPolicy.MaximumAttempts)
}

// Runs recorded before versionQueueWait keep their bound: all attempts
// together, the wait included, as the retry policy allows them.
func TestQueueBoundToolOptionsBoundAllAttempts(t *testing.T) {
	tool := config.Tool{Name: "t", Builtin: "echo"}
	def := queueBoundToolOptions(toolOptions(tool), tool)
	require.Equal(t, 5*35*time.Second+(1+2+4+8)*time.Second, def.ScheduleToCloseTimeout, "the default policy")

	tool = config.Tool{Name: "t", HTTP: &config.HTTPTool{Timeout: config.Duration(300 * time.Millisecond)},
		Retry: &config.Retry{InitialInterval: config.Duration(100 * time.Millisecond), Backoff: 2, MaxInterval: config.Duration(150 * time.Millisecond), MaxAttempts: 4}}
	own := queueBoundToolOptions(toolOptions(tool), tool)
	start := 300*time.Millisecond + 5*time.Second
	require.Equal(t, 4*start+(100+150+150)*time.Millisecond, own.ScheduleToCloseTimeout, "waits capped by max_interval")

	tool = config.Tool{Name: "t", Builtin: "echo", Retry: &config.Retry{MaxAttempts: 0}}
	unlimited := queueBoundToolOptions(toolOptions(tool), tool)
	require.Zero(t, unlimited.ScheduleToCloseTimeout, "unlimited attempts: no bound")
}
