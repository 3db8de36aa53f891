package main

import (
	"flag"
	"os"

	"github.com/unstuck-dev/unstuck/internal/app"
)

// versioningFlags are the worker's Worker Versioning flags, each
// defaulting to its environment variable (for compose files and unit
// files that set the build id at deploy time).
type versioningFlags struct {
	deployment, buildID, behavior *string
}

func addVersioningFlags(fs *flag.FlagSet) versioningFlags {
	return versioningFlags{
		deployment: fs.String("deployment-name", os.Getenv("UNSTUCK_DEPLOYMENT_NAME"),
			"Temporal worker deployment this worker is a version of; empty: unversioned (env UNSTUCK_DEPLOYMENT_NAME)"),
		buildID: fs.String("build-id", os.Getenv("UNSTUCK_BUILD_ID"),
			"this build's id within the deployment (env UNSTUCK_BUILD_ID; default with --deployment-name: the binary's VCS revision)"),
		behavior: fs.String("versioning-behavior", os.Getenv("UNSTUCK_VERSIONING_BEHAVIOR"),
			"what a versioned worker's runs do when another version becomes current: pinned (stay on this build; the default) or auto-upgrade (env UNSTUCK_VERSIONING_BEHAVIOR)"),
	}
}

// resolve is the versioning the flags ask for: with a deployment name
// and no build id, the binary's VCS revision.
func (f versioningFlags) resolve() app.Versioning {
	v := app.Versioning{DeploymentName: *f.deployment, BuildID: *f.buildID, Behavior: *f.behavior}
	if v.On() && v.BuildID == "" {
		v.BuildID = app.DefaultBuildID()
	}
	return v
}
