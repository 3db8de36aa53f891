package workflows

import "go.temporal.io/sdk/workflow"

// releaseAll is the versionRelease a run starting now answers: it takes
// every change of releaseChanges as made.
const releaseAll workflow.Version = 2

// releaseKey holds, in a run's context, what the run answered to
// versionRelease.
type releaseKey struct{}

// withRelease asks versionRelease once, as a run starts, and keeps the
// answer in the context every later version check derives from.
func withRelease(ctx workflow.Context) workflow.Context {
	return workflow.WithValue(ctx, releaseKey{}, workflow.GetVersion(ctx, versionRelease, workflow.DefaultVersion, releaseAll))
}

// releaseChange is when a run takes a change as made: from the release
// it started on (its versionRelease answer) on, at version.
type releaseChange struct{ release, version workflow.Version }

// releaseChanges are the changes a run takes as made, by the release it
// started on. The set of a release is closed: a run started on it may be
// continued by a later worker, which must not take as made a change the
// run's earlier part ran without. So a later change of behaviour gets
// its own change id, not listed here, and versionOf asks it on its own,
// as GetVersion always did; an id listed here never gets a higher
// version (a new id does). A later release that folds more changes in
// raises releaseAll and lists them here with that release. A change no
// supported release needs any more is retired: it leaves this list and
// nothing asks it (docs/deploying.md, "Release line").
var releaseChanges = map[string]releaseChange{
	versionExploreCycle: {1, 1}, versionGraphProgress: {1, 1}, versionHandoff: {1, 1},
	versionWorkerBreaker: {1, 1}, versionRungsByClass: {1, 1}, versionStableSignatures: {1, 1},
	versionTimeWindow: {1, 1}, versionStateHash: {1, 1}, versionHandingOver: {1, 1},
	versionAnswerPending: {1, 1}, versionWholeArguments: {1, 1}, versionRelativeDates: {1, 1},
	versionStreamCalls: {1, 1}, versionToolQueues: {1, 1}, versionQueueWait: {1, 1},
	versionModelHeartbeat: {1, 1}, versionRepairValues: {1, 1},

	versionExploreRegion: {2, 1}, versionHandoffFlat: {2, 1}, versionHandoffRefusals: {2, 1},
	versionHandoffLoads: {2, 1}, versionArchiveTrace: {2, 1}, versionWaitingContinue: {2, 1},
	versionBoundedLists: {2, 1}, versionContextClear: {2, 1}, versionModelFallback: {2, 1},
	versionLongerReply: {2, 1}, versionNoAnswerLoop: {2, 1}, versionCutOffRepair: {2, 1},
	versionBudget: {2, 1}, versionBudgetReplyBound: {2, 1}, versionBudgetWait: {2, 1},
	versionLocalTools: {2, 1}, versionRepairSpend: {2, 1}, versionSummaryAfterRaise: {2, 1},
	versionForkArchivedSpend: {2, 1}, versionGraphWaits: {2, 1}, versionGraphNoAnswer: {2, 1},
	versionCancelFirst: {2, 1}, versionRungWaits: {2, 1}, versionFallbackCooldown: {2, 1},
	versionForkArchived: {2, 1}, versionLocalResolve: {2, 1}, versionPhaseShown: {2, 1},
}

// versionOf is workflow.GetVersion(ctx, changeID, DefaultVersion, max),
// but a run that started on a release taking a change of releaseChanges
// takes it as made, at its version, and asks nothing: it records no
// marker and no TemporalChangeVersion upsert for it. A run recorded before
// versionRelease existed, a change not in releaseChanges, or a context
// without the run's answer (a handler's, should one lack it: as correct,
// only dearer) asks changeID as GetVersion always did.
func versionOf(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version {
	if c, ok := releaseChanges[changeID]; ok {
		if rel, ok := ctx.Value(releaseKey{}).(workflow.Version); ok && rel >= c.release {
			return c.version
		}
	}
	return workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, max)
}

// sameRelease gives an update handler's context (the SDK starts handlers
// from its own root context, not the run's) the run's versionRelease
// answer, so the handler's version checks ask what the run's do.
func sameRelease(run workflow.Context) func(workflow.Context) workflow.Context {
	rel := run.Value(releaseKey{})
	return func(ctx workflow.Context) workflow.Context {
		if rel == nil {
			return ctx
		}
		return workflow.WithValue(ctx, releaseKey{}, rel)
	}
}
