package workflows

import (
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A read-back that could not read (its tool failed once its retries were
// spent, or its breaker is open) says nothing of the call it checks:
// could not check is not did not happen. The call is held as
// outcome_unknown, a write so held is never run again until a read-back
// can tell (ledger_unverified.go), and the read tool's breaker counts the
// failure: the checked tool answered, so its own counts none.

// unknownCheck is the verdict of a read-back that could not read, why
// saying what kept it from reading.
func unknownCheck(v *config.Verify, why, readBack string) signals.Check {
	return signals.Check{Kind: signals.CheckReadBack, Condition: v.Expect, Reason: why, ReadBack: readBack, Unknown: true}
}

// unknown settles a checked call whose read-back could not read: failed,
// class outcome_unknown, what the tool answered kept beside the reason.
// The tool served, so its breaker counts a success.
func (p *pipeline) unknown(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	what, after := "call", ""
	if tool.Effect == config.EffectWrite {
		what, after = "write", " It is not run again while its outcome is unknown: ask for the same call again to check again"
	}
	ck.Reason = fmt.Sprintf("the outcome of the %s is unknown: %s, so whether it took effect is not known.%s", what, ck.Reason, after)
	p.checkFailed(ctx, c, result, ck, policies.OutcomeUnknown)
	p.r.escape().Breaker(tool.Name).Record(workflow.Now(ctx), true)
}

// stillUnknown answers a write asked for again whose earlier try (tryID)
// is held unknown and whose read-back still cannot read: it does not run.
// Its tool's breaker gets back a trial it may have let this call take.
func (p *pipeline) stillUnknown(ctx workflow.Context, c *stepCall, tool config.Tool, tryID string, ck signals.Check) {
	ck.Reason = fmt.Sprintf("not run again: the outcome of %s is still unknown: %s, so whether it took effect is not known. Ask for the same call again to check again", tryID, ck.Reason)
	p.checkFailed(ctx, c, nil, ck, policies.OutcomeUnknown)
	p.r.escape().Breaker(tool.Name).Release()
}

// readBackUnknown says whether a read-back that could not read holds its
// call unknown (read-back-unknown); asked only then.
func readBackUnknown(ctx workflow.Context) bool {
	return versionOf(ctx, versionReadBackUnknown, 1) >= 1
}

// readBreakerWait is how long a read-back waits for its tool's open
// breaker to let a trial through (0: it need not): a read tool that is
// down for a while is read again once, after its cooldown, rather than
// the call held unknown at once.
func (p *pipeline) readBreakerWait(ctx workflow.Context, tool string) time.Duration {
	b := p.r.run.Breakers[tool]
	if b == nil || b.State != policies.BreakerOpen {
		return 0
	}
	left := b.OpenedAt.Add(b.Cooldown).Sub(workflow.Now(ctx))
	if left <= 0 || !readBackUnknown(ctx) {
		return 0
	}
	return left
}

// readBreakerHolds says whether the read tool's breaker keeps a read-back
// from being tried (the why, "" when it does not). A breaker that never
// counted a failure asks nothing.
func (p *pipeline) readBreakerHolds(ctx workflow.Context, tool string) string {
	b := p.r.run.Breakers[tool]
	if b == nil || b.State == policies.BreakerClosed || !readBackUnknown(ctx) || b.Allow(workflow.Now(ctx)) {
		return ""
	}
	return fmt.Sprintf("its read-back %s was not tried: the breaker of %s is open after %d failures", tool, tool, b.Failures)
}

// readBackRead counts a read-back that read as a success of its tool,
// when the tool's breaker has failures to clear (or a trial to settle).
func (p *pipeline) readBackRead(ctx workflow.Context, tool string) {
	b := p.r.run.Breakers[tool]
	if b == nil || (b.Failures == 0 && b.State == policies.BreakerClosed) || !readBackUnknown(ctx) {
		return
	}
	b.Record(workflow.Now(ctx), true)
}
