package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/unstuck-dev/unstuck/app"
)

// bootstrapEnv is the default of --bootstrap-current.
const bootstrapEnv = "UNSTUCK_BOOTSTRAP_CURRENT"

// versioningFlags are the worker's Worker Versioning flags, each
// defaulting to its environment variable (for compose files and unit
// files that set the build id at deploy time).
type versioningFlags struct {
	deployment, buildID, behavior *string
	bootstrap                     *bool
	printBuildID                  *bool
	// bootstrapEnvErr: UNSTUCK_BOOTSTRAP_CURRENT is not a boolean.
	bootstrapEnvErr error
}

func addVersioningFlags(fs *flag.FlagSet) *versioningFlags {
	f := &versioningFlags{}
	bootstrap := true
	if s := os.Getenv(bootstrapEnv); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			f.bootstrapEnvErr = fmt.Errorf("%s=%q: must be true or false", bootstrapEnv, s)
		}
		bootstrap = b || err != nil
	}
	f.deployment = fs.String("deployment-name", os.Getenv("UNSTUCK_DEPLOYMENT_NAME"),
		"Temporal worker deployment this worker is a version of; empty: unversioned (env UNSTUCK_DEPLOYMENT_NAME)")
	f.buildID = fs.String("build-id", os.Getenv("UNSTUCK_BUILD_ID"),
		"this build's id within the deployment (env UNSTUCK_BUILD_ID; default with --deployment-name: the id make build stamped, else the binary's VCS revision)")
	f.behavior = fs.String("versioning-behavior", os.Getenv("UNSTUCK_VERSIONING_BEHAVIOR"),
		"what a versioned worker's runs do when another version becomes current: pinned (stay on this build; the default) or auto-upgrade (env UNSTUCK_VERSIONING_BEHAVIOR)")
	f.bootstrap = fs.Bool("bootstrap-current", bootstrap,
		"when the worker's deployment has no current or ramping version yet (its first start), make this build current; an existing current version is never changed (env "+bootstrapEnv+")")
	f.printBuildID = fs.Bool("print-build-id", false,
		"print the build id this worker would run as (--build-id, else the stamped one) and exit, e.g. for temporal worker deployment set-current-version --build-id")
	return f
}

// resolve is the versioning the flags ask for: with a deployment name
// and no build id, the one stamped in the binary. It refuses a
// --bootstrap-current (or its variable) that is malformed or given to an
// unversioned worker, which has no version to make current.
func (f *versioningFlags) resolve(fs *flag.FlagSet) (v app.Versioning, bootstrap bool, err error) {
	v = app.Versioning{DeploymentName: *f.deployment, BuildID: *f.buildID, Behavior: *f.behavior}
	if v.On() && v.BuildID == "" {
		v.BuildID = app.DefaultBuildID()
	}
	if f.bootstrapEnvErr != nil && !flagSet(fs, "bootstrap-current") {
		return v, false, f.bootstrapEnvErr
	}
	if !v.On() && (flagSet(fs, "bootstrap-current") || os.Getenv(bootstrapEnv) != "") {
		return v, false, errors.New("--bootstrap-current (or " + bootstrapEnv + ") is given without --deployment-name: only a version of a worker deployment can be made current; add --deployment-name (or UNSTUCK_DEPLOYMENT_NAME), or leave it out")
	}
	return v, *f.bootstrap, nil
}

// buildIDToPrint is what --print-build-id prints: the build id given, else
// the stamped one; an error with the fix when the binary has none.
func (f *versioningFlags) buildIDToPrint() (string, error) {
	id := *f.buildID
	if id == "" {
		id = app.DefaultBuildID()
	}
	if id == "" {
		return "", errors.New("--print-build-id: this binary has no build id stamped (built outside a git checkout, or with -buildvcs=false, not by make build): pass --build-id (or UNSTUCK_BUILD_ID)")
	}
	return id, nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
