package policies

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func dur(d time.Duration) config.Duration { return config.Duration(d) }

// Retry fills what the config leaves out from the default, keeps
// MaxAttempts 0 (Temporal's unlimited) and never lets MaxInterval fall
// below InitialInterval.
func TestRetryFillsFromTheDefault(t *testing.T) {
	def := config.Retry{InitialInterval: dur(time.Second), Backoff: 2, MaxInterval: dur(30 * time.Second), MaxAttempts: 5}
	cases := []struct {
		name string
		in   *config.Retry
		want RetrySpec
	}{
		{
			name: "nil is the default",
			in:   nil,
			want: RetrySpec{InitialInterval: time.Second, Backoff: 2, MaxInterval: 30 * time.Second, MaxAttempts: 5},
		},
		{
			name: "everything given",
			in:   &config.Retry{InitialInterval: dur(100 * time.Millisecond), Backoff: 1.5, MaxInterval: dur(time.Second), MaxAttempts: 3},
			want: RetrySpec{InitialInterval: 100 * time.Millisecond, Backoff: 1.5, MaxInterval: time.Second, MaxAttempts: 3},
		},
		{
			name: "only the initial interval: the rest from the default",
			in:   &config.Retry{InitialInterval: dur(2 * time.Second), MaxAttempts: 5},
			want: RetrySpec{InitialInterval: 2 * time.Second, Backoff: 2, MaxInterval: 30 * time.Second, MaxAttempts: 5},
		},
		{
			name: "only backoff and attempts",
			in:   &config.Retry{Backoff: 3, MaxAttempts: 2},
			want: RetrySpec{InitialInterval: time.Second, Backoff: 3, MaxInterval: 30 * time.Second, MaxAttempts: 2},
		},
		{
			name: "a backoff below 1 is the default's",
			in:   &config.Retry{Backoff: 0.5, MaxAttempts: 4},
			want: RetrySpec{InitialInterval: time.Second, Backoff: 2, MaxInterval: 30 * time.Second, MaxAttempts: 4},
		},
		{
			name: "backoff exactly 1 is kept",
			in:   &config.Retry{Backoff: 1, MaxAttempts: 4},
			want: RetrySpec{InitialInterval: time.Second, Backoff: 1, MaxInterval: 30 * time.Second, MaxAttempts: 4},
		},
		{
			name: "max attempts 0 stays unlimited",
			in:   &config.Retry{InitialInterval: dur(time.Second)},
			want: RetrySpec{InitialInterval: time.Second, Backoff: 2, MaxInterval: 30 * time.Second, MaxAttempts: 0},
		},
		{
			name: "max interval below initial is raised",
			in:   &config.Retry{InitialInterval: dur(10 * time.Second), MaxInterval: dur(2 * time.Second), MaxAttempts: 5},
			want: RetrySpec{InitialInterval: 10 * time.Second, Backoff: 2, MaxInterval: 10 * time.Second, MaxAttempts: 5},
		},
		{
			name: "an initial interval above the default max raises the max",
			in:   &config.Retry{InitialInterval: dur(time.Minute), MaxAttempts: 5},
			want: RetrySpec{InitialInterval: time.Minute, Backoff: 2, MaxInterval: time.Minute, MaxAttempts: 5},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Retry(tc.in, def))
		})
	}
}

// The default policies themselves are sane, and the model's is at least
// as patient as the tools'.
func TestDefaultRetryPolicies(t *testing.T) {
	tool := Retry(nil, DefaultToolRetry)
	require.Equal(t, RetrySpec{InitialInterval: time.Second, Backoff: 2, MaxInterval: 30 * time.Second, MaxAttempts: 5}, tool)
	model := Retry(nil, DefaultModelRetry)
	require.Equal(t, RetrySpec{InitialInterval: time.Second, Backoff: 2, MaxInterval: time.Minute, MaxAttempts: 8}, model)
}

// The non-retryable types are copied, so a caller's slice is never shared.
func TestRetryCopiesNonRetryableTypes(t *testing.T) {
	types := []string{"invalid_args", "fatal"}
	spec := Retry(nil, DefaultToolRetry, types...)
	require.Equal(t, []string{"invalid_args", "fatal"}, spec.NonRetryable)
	types[0] = "changed"
	require.Equal(t, "invalid_args", spec.NonRetryable[0])

	require.Empty(t, Retry(nil, DefaultToolRetry).NonRetryable)
}
