package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// A versioned worker gets no task until its deployment routes to it, and
// a deployment routes nowhere until a version is made current. The first
// worker of a new deployment would wait for an operator who has nothing
// to roll out yet, so it makes its own version current: bootstrapping.
// Once the deployment has a current (or ramping) version, choosing it is
// the operator's act (temporal worker deployment set-current-version,
// set-ramping-version), never a worker's.

// BootstrapTimeout bounds how long a worker waits for its version to be
// registered (the server learns of it from the worker's first polls) and
// made current.
const BootstrapTimeout = 30 * time.Second

// bootstrapPoll is the pause between two looks at the deployment.
const bootstrapPoll = 250 * time.Millisecond

// bootstrapAction is what one look at the deployment says to do.
type bootstrapAction int

const (
	// bootstrapWait: the deployment or this version is not registered
	// yet; look again.
	bootstrapWait bootstrapAction = iota
	// bootstrapSet: no version is current or ramping, and this one is
	// registered: make it current.
	bootstrapSet
	// bootstrapDone: the deployment routes somewhere already (this
	// version or another): leave it as it is.
	bootstrapDone
)

// bootstrapDecide reads one description of the deployment (nil: the
// server does not know the deployment yet). force makes v current even
// when another version is: only for a deployment whose operator this
// program is (the demo, on its own dev server).
func bootstrapDecide(info *client.WorkerDeploymentInfo, v Versioning, force bool) bootstrapAction {
	if info == nil {
		return bootstrapWait
	}
	rc := info.RoutingConfig
	current, ramping := versionOf(rc.CurrentVersion), versionOf(rc.RampingVersion)
	if current == v.BuildID {
		return bootstrapDone
	}
	if !force && (current != "" || ramping != "") {
		return bootstrapDone
	}
	registered := slices.ContainsFunc(info.VersionSummaries, func(s client.WorkerDeploymentVersionSummary) bool {
		return s.Version.BuildID == v.BuildID
	})
	if !registered {
		return bootstrapWait
	}
	return bootstrapSet
}

// versionOf is a routing target's build id; "" for unversioned workers.
func versionOf(v *worker.WorkerDeploymentVersion) string {
	if v == nil {
		return ""
	}
	return v.BuildID
}

// BootstrapResult says what BootstrapCurrent found and did.
type BootstrapResult struct {
	// Made: this call made v current.
	Made bool
	// Current and Ramping are the deployment's routing after the call
	// (build ids, "" for none); RampingPercent goes with Ramping.
	Current, Ramping string
	RampingPercent   float32
}

// String is the worker's log line for the result.
func (r BootstrapResult) String(v Versioning) string {
	set := fmt.Sprintf("temporal worker deployment set-current-version --deployment-name %s --build-id %s -y", v.DeploymentName, v.BuildID)
	switch {
	case r.Made && r.Current == v.BuildID:
		return fmt.Sprintf("worker deployment %s had no current version: made this build (%s) current, so new runs start on it; a later build becomes current only when you make it so (temporal worker deployment set-current-version --deployment-name %s --build-id <its build id> -y)",
			v.DeploymentName, v.BuildID, v.DeploymentName)
	case r.Current == v.BuildID:
		return fmt.Sprintf("this build (%s) is the current version of worker deployment %s", v.BuildID, v.DeploymentName)
	case r.Ramping == v.BuildID:
		return fmt.Sprintf("this build (%s) is ramping in worker deployment %s (%.0f%% of new runs); make it current when it is ready: %s",
			v.BuildID, v.DeploymentName, r.RampingPercent, set)
	case r.Ramping != "":
		return fmt.Sprintf("worker deployment %s is ramping to %s (%.0f%%) from %s; left as it is: this build (%s) gets new runs once you make it current (%s) or ramp it",
			v.DeploymentName, r.Ramping, r.RampingPercent, orUnversioned(r.Current), v.BuildID, set)
	}
	return fmt.Sprintf("worker deployment %s's current version is %s; left as it is: this build (%s) gets new runs once you make it current (%s), or ramp it first (temporal worker deployment set-ramping-version ... --percentage 10)",
		v.DeploymentName, orUnversioned(r.Current), v.BuildID, set)
}

func orUnversioned(build string) string {
	if build == "" {
		return "unversioned workers"
	}
	return build
}

// BootstrapCurrent makes v the current version of its deployment when the
// deployment routes nowhere yet (no current and no ramping version), or,
// with force, whenever v is not current. v's worker must be polling: the
// server registers a version from its polls, so BootstrapCurrent looks
// again until it is, for at most timeout. It never changes a current or
// ramping version without force.
func BootstrapCurrent(ctx context.Context, c client.Client, v Versioning, force bool, timeout time.Duration) (BootstrapResult, error) {
	if !v.On() {
		return BootstrapResult{}, errors.New("bootstrap: the worker is unversioned (no --deployment-name)")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := c.WorkerDeploymentClient().GetHandle(v.DeploymentName)
	var res BootstrapResult
	var last error
	for {
		d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		var info *client.WorkerDeploymentInfo
		switch {
		case err == nil:
			info = &d.Info
			rc := d.Info.RoutingConfig
			res.Current, res.Ramping, res.RampingPercent = versionOf(rc.CurrentVersion), versionOf(rc.RampingVersion), rc.RampingVersionPercentage
		case isNotFound(err):
			last = fmt.Errorf("the server does not know worker deployment %s yet", v.DeploymentName)
		case ctx.Err() == nil:
			last = err
		}
		if info != nil {
			switch bootstrapDecide(info, v, force) {
			case bootstrapDone:
				return res, nil
			case bootstrapSet:
				// The conflict token makes this a no-op failure if another
				// worker or an operator changed the routing since the look.
				_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{
					BuildID: v.BuildID, ConflictToken: d.ConflictToken, IgnoreMissingTaskQueues: force,
				})
				if err == nil {
					res.Made, res.Current = true, v.BuildID
					if res.Ramping == v.BuildID {
						res.Ramping, res.RampingPercent = "", 0
					}
					return res, nil
				}
				last = err
			case bootstrapWait:
				last = fmt.Errorf("version %s:%s is not registered yet (its worker has not polled)", v.DeploymentName, v.BuildID)
			}
		}
		select {
		case <-ctx.Done():
			if last == nil {
				last = ctx.Err()
			}
			return res, fmt.Errorf("worker deployment %s: could not make this build (%s) its current version within %s: %v. Make it current yourself once the worker polls (temporal worker deployment set-current-version --deployment-name %s --build-id %s -y), or start the worker with --bootstrap-current=false and do so",
				v.DeploymentName, v.BuildID, timeout, last, v.DeploymentName, v.BuildID)
		case <-time.After(bootstrapPoll):
		}
	}
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}
