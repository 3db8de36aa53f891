package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// A tool's attempts together are bounded by its retry policy: attempts ×
// start-to-close plus the waits between them.
func TestToolOptionsBoundAllAttempts(t *testing.T) {
	def := toolOptions(config.Tool{Name: "t", Builtin: "echo"})
	require.Equal(t, 35*time.Second, def.StartToCloseTimeout)
	require.Equal(t, 5*35*time.Second+(1+2+4+8)*time.Second, def.ScheduleToCloseTimeout, "the default policy")

	own := toolOptions(config.Tool{Name: "t", HTTP: &config.HTTPTool{Timeout: config.Duration(300 * time.Millisecond)},
		Retry: &config.Retry{InitialInterval: config.Duration(100 * time.Millisecond), Backoff: 2, MaxInterval: config.Duration(150 * time.Millisecond), MaxAttempts: 4}})
	start := 300*time.Millisecond + 5*time.Second
	require.Equal(t, start, own.StartToCloseTimeout)
	require.Equal(t, 4*start+(100+150+150)*time.Millisecond, own.ScheduleToCloseTimeout, "waits capped by max_interval")

	unlimited := toolOptions(config.Tool{Name: "t", Builtin: "echo", Retry: &config.Retry{MaxAttempts: 0}})
	require.Zero(t, unlimited.ScheduleToCloseTimeout, "unlimited attempts: no bound")
}
