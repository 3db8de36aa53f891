package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/child"
)

// The demo runs its worker as a version of a worker deployment (the
// demo's --deployment-name, "unstuck" by default), as the production set-up of
// docs/deploying.md does, so each run is pinned to the build that started
// it. The demo's server keeps its history in --data between demos, so a
// second `make demo` after a code change brings a new build to a
// deployment whose current version is the previous one. A worker never
// changes a current version (that is a rollout, the operator's act); in
// the demo the demo is the operator of its own server, so it makes its
// worker's build current, saying so.

// demoVersion is the version the demo's worker runs as: the build id the
// worker binary reports (make build stamps git describe), else, for a
// binary without one, a digest of the binary, which changes exactly when
// the binary does. Unversioned when o.deployment is empty.
func demoVersion(o demoOptions) (app.Versioning, error) {
	if o.deployment == "" {
		return app.Versioning{}, nil
	}
	v := app.Versioning{DeploymentName: o.deployment}
	cmd := exec.Command(o.worker, "--print-build-id")
	cmd.Env = append(os.Environ(), "UNSTUCK_BUILD_ID=")
	if out, err := cmd.Output(); err == nil {
		v.BuildID = strings.TrimSpace(string(out))
	}
	if v.BuildID == "" {
		data, err := os.ReadFile(o.worker)
		if err != nil {
			return v, fmt.Errorf("--worker %s: %w", o.worker, err)
		}
		sum := sha256.Sum256(data)
		v.BuildID = "sha256-" + hex.EncodeToString(sum[:6])
	}
	if err := v.Validate(); err != nil {
		return v, fmt.Errorf("--deployment-name: %w", err)
	}
	return v, nil
}

// versioningArgs are the worker's flags for v.
func versioningArgs(v app.Versioning) []string {
	if !v.On() {
		return nil
	}
	return []string{"--deployment-name", v.DeploymentName, "--build-id", v.BuildID}
}

// makeDemoBuildCurrent makes the demo worker's version current (the
// worker does so itself on a new deployment; here also over a previous
// demo's build) and says what it found.
func makeDemoBuildCurrent(ctx context.Context, out io.Writer, c client.Client, v app.Versioning, worker *child.Process) error {
	if !v.On() {
		return nil
	}
	before, err := currentBuild(ctx, c, v.DeploymentName)
	if err != nil {
		before = ""
	}
	res, err := app.BootstrapCurrent(ctx, c, v, true, app.BootstrapTimeout)
	if err != nil {
		if worker.HasExited() {
			return fmt.Errorf("the worker exited: %s", exitedText(worker))
		}
		return err
	}
	switch {
	case before != "" && before != v.BuildID:
		fmt.Fprintf(out, "» worker deployment %s: made this build (%s) current, as a rollout would (temporal worker deployment set-current-version); runs build %s started stay pinned to it and wait for its worker\n",
			v.DeploymentName, v.BuildID, before)
	default:
		fmt.Fprintf(out, "» worker deployment %s: this build (%s) is current; each run stays on the build that started it\n", v.DeploymentName, res.Current)
	}
	return nil
}

// currentBuild is the deployment's current build id ("" for none, or a
// deployment the server does not know yet).
func currentBuild(ctx context.Context, c client.Client, deployment string) (string, error) {
	d, err := c.WorkerDeploymentClient().GetHandle(deployment).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return "", err
	}
	if cv := d.Info.RoutingConfig.CurrentVersion; cv != nil {
		return cv.BuildID, nil
	}
	return "", nil
}
