package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// The versioning flags and their variables: a versioned worker bootstraps
// its deployment unless told not to; a malformed variable, or a bootstrap
// setting for an unversioned worker, is refused with the fix.
func TestVersioningFlagsResolve(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		args      []string
		bootstrap bool
		err       string
	}{
		{"unversioned", nil, nil, false, ""},
		{"versioned: bootstraps by default", nil, []string{"--deployment-name", "unstuck", "--build-id", "b1"}, true, ""},
		{"turned off by flag", nil, []string{"--deployment-name", "unstuck", "--build-id", "b1", "--bootstrap-current=false"}, false, ""},
		{"turned off by variable", map[string]string{bootstrapEnv: "false"}, []string{"--deployment-name", "unstuck", "--build-id", "b1"}, false, ""},
		{"variable overridden by flag", map[string]string{bootstrapEnv: "false"}, []string{"--deployment-name", "unstuck", "--build-id", "b1", "--bootstrap-current"}, true, ""},
		{"an empty variable is unset", map[string]string{bootstrapEnv: ""}, []string{"--deployment-name", "unstuck", "--build-id", "b1"}, true, ""},
		{"a malformed variable", map[string]string{bootstrapEnv: "sometimes"}, []string{"--deployment-name", "unstuck", "--build-id", "b1"}, false, `UNSTUCK_BOOTSTRAP_CURRENT="sometimes": must be true or false`},
		{"the flag without a deployment", nil, []string{"--bootstrap-current=false"}, false, "--bootstrap-current (or UNSTUCK_BOOTSTRAP_CURRENT) is given without --deployment-name"},
		{"the variable without a deployment", map[string]string{bootstrapEnv: "true"}, nil, false, "without --deployment-name"},
		{"deployment from its variable", map[string]string{"UNSTUCK_DEPLOYMENT_NAME": "unstuck", "UNSTUCK_BUILD_ID": "b1"}, nil, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{bootstrapEnv, "UNSTUCK_DEPLOYMENT_NAME", "UNSTUCK_BUILD_ID", "UNSTUCK_VERSIONING_BEHAVIOR"} {
				t.Setenv(k, tc.env[k])
			}
			fs := flag.NewFlagSet("unstuck-worker", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := addVersioningFlags(fs)
			require.NoError(t, fs.Parse(tc.args))
			v, bootstrap, err := f.resolve(fs)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, v.Validate())
			require.Equal(t, tc.bootstrap, bootstrap && v.On())
		})
	}
}

// --print-build-id prints the id given, else the stamped one.
func TestPrintBuildID(t *testing.T) {
	t.Setenv("UNSTUCK_BUILD_ID", "")
	fs := flag.NewFlagSet("unstuck-worker", flag.ContinueOnError)
	f := addVersioningFlags(fs)
	require.NoError(t, fs.Parse([]string{"--build-id", "2026-11-27.1", "--print-build-id"}))
	id, err := f.buildIDToPrint()
	require.NoError(t, err)
	require.Equal(t, "2026-11-27.1", id)
}
