package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// resolveOptions: resolving an agent reads the worker's memory; an unknown
// agent is final.
func resolveOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			MaximumAttempts:        5,
			NonRetryableErrorTypes: []string{activities.UnknownAgentError},
		},
	}
}

// verifyOptions: reading the previous run's record. A refusal is final;
// anything else (the server busy or away) is retried until it answers, so
// a passing outage never costs a legitimate run its state.
func verifyOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			NonRetryableErrorTypes: []string{activities.CarriedRefusedError},
		},
	}
}

// verifyLocalOptions: verifyOptions for the local activity. A local
// activity's retries end at its schedule-to-close timeout (the SDK takes
// the start-to-close one when none is set); the check is retried through
// an outage of the history service as long as the activity was.
func verifyLocalOptions() workflow.LocalActivityOptions {
	o := verifyOptions()
	return workflow.LocalActivityOptions{
		StartToCloseTimeout:    o.StartToCloseTimeout,
		ScheduleToCloseTimeout: 365 * 24 * time.Hour,
		RetryPolicy:            o.RetryPolicy,
		Summary:                "verify the carried run state",
	}
}

// modelOptions: the model's retry policy from config; a rejected request
// (bad key, unknown model) is final.
func modelOptions(m config.Model) workflow.ActivityOptions {
	timeout := m.Timeout.D()
	if timeout <= 0 {
		timeout = config.DefaultModelTimeout.D()
	}
	spec := policies.Retry(m.Retry, policies.DefaultModelRetry, activities.ModelRejectedError)
	return workflow.ActivityOptions{
		// The HTTP client enforces the timeout; the margin lets it report.
		StartToCloseTimeout: timeout + 15*time.Second,
		RetryPolicy:         retryPolicy(spec),
	}
}

// toolOptions: the tool's own timeout and retry policy; only transient
// failures are retried, at most max_attempts times, each attempt bounded
// by the tool's timeout. There is no schedule-to-close timeout: it would
// count the time a call waits in the task queue for a free worker slot,
// and a busy worker would time calls out before they were sent (waiting
// is not a failure); the retry policy bounds the attempts already.
func toolOptions(t config.Tool) workflow.ActivityOptions {
	timeout := config.DefaultHTTPTimeout.D()
	if t.HTTP != nil && t.HTTP.Timeout > 0 {
		timeout = t.HTTP.Timeout.D()
	}
	if t.MCP != nil && t.MCP.Timeout > 0 {
		timeout = t.MCP.Timeout.D()
	}
	return workflow.ActivityOptions{
		StartToCloseTimeout: timeout + 5*time.Second,
		RetryPolicy:         retryPolicy(toolRetry(t)),
	}
}

// toolRetry is the tool's retry policy: its own or the default, with the
// classes no retry can mend.
func toolRetry(t config.Tool) policies.RetrySpec {
	nonRetryable := append(append([]string{}, policies.NonRetryableClasses...), activities.ResultTooLargeError)
	return policies.Retry(t.Retry, policies.DefaultToolRetry, nonRetryable...)
}

// queueBoundToolOptions are the tool options of runs recorded before
// versionQueueWait: all attempts together, waiting in the task queue
// included, bounded by what the policy allows (policies.ScheduleToClose;
// unlimited attempts stay unbounded).
func queueBoundToolOptions(o workflow.ActivityOptions, t config.Tool) workflow.ActivityOptions {
	o.ScheduleToCloseTimeout = policies.ScheduleToClose(toolRetry(t), o.StartToCloseTimeout)
	return o
}

// humanTimeout is how long a run waits for a person (a reply, an approval).
func humanTimeout(spec *config.Resolved) time.Duration {
	if t := spec.Agent.Policies.HumanTimeout.D(); t > 0 {
		return t
	}
	return config.DefaultHumanTimeout.D()
}

func retryPolicy(s policies.RetrySpec) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        s.InitialInterval,
		BackoffCoefficient:     s.Backoff,
		MaximumInterval:        s.MaxInterval,
		MaximumAttempts:        int32(s.MaxAttempts),
		NonRetryableErrorTypes: s.NonRetryable,
	}
}

// registryOptions: reading agents' load from visibility. A handoff does
// not wait long for it: without figures the choice goes on without
// capacity and success rates (the handoff node says so).
func registryOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3, NonRetryableErrorTypes: []string{activities.NoVisibilityError}},
	}
}
