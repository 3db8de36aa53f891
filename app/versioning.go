package app

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Versioning is a worker's Worker Versioning (Temporal worker
// deployments): the deployment it belongs to and its build. A worker
// with a deployment name polls as that deployment version, and each
// agent run is pinned to the version that started it (the default) or
// moves to the current one at its next workflow task (auto-upgrade, with
// the workflow's GetVersion gates keeping it replay-safe). Without a
// deployment name the worker is unversioned, as before.
type Versioning struct {
	DeploymentName string
	BuildID        string
	// Behavior is BehaviorPinned (default when empty) or BehaviorAutoUpgrade.
	Behavior string
}

// The versioning behaviours a worker gives agent runs.
const (
	BehaviorPinned      = "pinned"
	BehaviorAutoUpgrade = "auto-upgrade"
)

// maxVersionPart bounds a deployment name and a build id (the server's
// limit for identifiers).
const maxVersionPart = 255

// On reports whether the worker uses Worker Versioning.
func (v Versioning) On() bool { return v.DeploymentName != "" }

// Validate refuses a version the server would refuse, or one that names
// a build without saying which: the reason and the fix, by flag.
func (v Versioning) Validate() error {
	if !v.On() {
		if v.BuildID != "" || v.Behavior != "" {
			return errors.New("--build-id or --versioning-behavior is given without --deployment-name: they describe a version of a worker deployment; add --deployment-name (or UNSTUCK_DEPLOYMENT_NAME)")
		}
		return nil
	}
	if err := versionPart("--deployment-name", v.DeploymentName); err != nil {
		return err
	}
	if strings.ContainsAny(v.DeploymentName, ".:") {
		return fmt.Errorf("--deployment-name %q: must not contain '.' or ':' (Temporal writes a version as <deployment>:<build id>)", v.DeploymentName)
	}
	if v.BuildID == "" {
		return errors.New("--build-id is empty and this binary has no VCS revision stamped (built outside a git checkout, or with -buildvcs=false): pass --build-id (or UNSTUCK_BUILD_ID), e.g. the release's tag or commit")
	}
	if err := versionPart("--build-id", v.BuildID); err != nil {
		return err
	}
	switch v.Behavior {
	case "", BehaviorPinned, BehaviorAutoUpgrade:
		return nil
	}
	return fmt.Errorf("--versioning-behavior %q: must be %s (each run stays on the build that started it) or %s (runs move to the current build)", v.Behavior, BehaviorPinned, BehaviorAutoUpgrade)
}

func versionPart(flag, s string) error {
	switch {
	case len(s) > maxVersionPart:
		return fmt.Errorf("%s: %d characters, at most %d", flag, len(s), maxVersionPart)
	case strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t\r\n"):
		return fmt.Errorf("%s %q: must not contain spaces", flag, s)
	case strings.HasPrefix(s, "__"):
		return fmt.Errorf("%s %q: must not start with \"__\" (Temporal keeps those names)", flag, s)
	}
	for _, r := range s {
		if r < 0x21 || r == 0x7f {
			return fmt.Errorf("%s %q: must be printable", flag, s)
		}
	}
	return nil
}

// Apply sets the worker options of a versioned worker: its deployment
// version and the behaviour of the runs it starts. An unversioned
// Versioning leaves opts as they are.
func (v Versioning) Apply(opts worker.Options) worker.Options {
	if !v.On() {
		return opts
	}
	behavior := workflow.VersioningBehaviorPinned
	if v.Behavior == BehaviorAutoUpgrade {
		behavior = workflow.VersioningBehaviorAutoUpgrade
	}
	opts.DeploymentOptions = worker.DeploymentOptions{
		UseVersioning:             true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: v.DeploymentName, BuildID: v.BuildID},
		DefaultVersioningBehavior: behavior,
	}
	return opts
}

// String is the version as Temporal writes it, with the behaviour.
func (v Versioning) String() string {
	if !v.On() {
		return "unversioned"
	}
	b := v.Behavior
	if b == "" {
		b = BehaviorPinned
	}
	return fmt.Sprintf("deployment version %s:%s, runs %s", v.DeploymentName, v.BuildID, b)
}

// stampedBuildID is set at link time by `make build`
// (-ldflags "-X .../app.stampedBuildID=<git describe>"), for
// builds whose VCS stamp is off (-buildvcs=false).
var stampedBuildID string

// DefaultBuildID is the build id a versioned worker takes when none is
// given: the one `make build` stamped (git describe --always --dirty),
// else the binary's VCS revision (with "-dirty" when the tree had
// changes); "" when the binary has neither.
func DefaultBuildID() string {
	if stampedBuildID != "" {
		return stampedBuildID
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// CheckQueueVersioning refuses a worker on a task queue whose runs
// another worker deployment serves, or an unversioned worker on one a
// deployment serves: it would never be given their tasks. A queue the
// server does not know yet, or a server without worker deployments, is no
// objection.
func CheckQueueVersioning(ctx context.Context, c client.Client, taskQueue string, v Versioning) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := c.DescribeTaskQueue(ctx, taskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return nil
	}
	current := resp.GetVersioningInfo().GetCurrentDeploymentVersion()
	if current.GetDeploymentName() == "" || current.GetBuildId() == "" {
		return nil
	}
	if v.On() {
		if current.GetDeploymentName() == v.DeploymentName {
			return nil
		}
		return fmt.Errorf("task queue %q belongs to worker deployment %s, not %s: a worker of another deployment would get none of its runs' tasks. Use --deployment-name %s, or another --task-queue",
			taskQueue, current.GetDeploymentName(), v.DeploymentName, current.GetDeploymentName())
	}
	return fmt.Errorf("task queue %q is served by worker deployment %s (current version %s:%s), and this worker is unversioned: it would get none of its runs' tasks. Start it as a version of that deployment: --deployment-name %s --build-id <this build>",
		taskQueue, current.GetDeploymentName(), current.GetDeploymentName(), current.GetBuildId(), current.GetDeploymentName())
}
