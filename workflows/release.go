package workflows

import "go.temporal.io/sdk/workflow"

// releaseAll is the versionRelease of runs that take every change of
// versions.go as made.
const releaseAll workflow.Version = 1

// releaseKey holds, in a run's context, what the run answered to
// versionRelease.
type releaseKey struct{}

// withRelease asks versionRelease once, as a run starts, and keeps the
// answer in the context every later version check derives from.
func withRelease(ctx workflow.Context) workflow.Context {
	return workflow.WithValue(ctx, releaseKey{}, workflow.GetVersion(ctx, versionRelease, workflow.DefaultVersion, releaseAll))
}

// versionOf is workflow.GetVersion(ctx, changeID, DefaultVersion, max) for
// a change of this release: a run that started on this release (or a
// later one) takes the change as made, max, and asks nothing, so it
// records no marker and no TemporalChangeVersion upsert for it; a run
// recorded before versionRelease existed asks changeID as it always did,
// and replays the markers it recorded. A context without the answer (a
// handler's, should one lack it) asks changeID too, which is as correct,
// only dearer.
func versionOf(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version {
	if rel, ok := ctx.Value(releaseKey{}).(workflow.Version); ok && rel >= releaseAll {
		return max
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
