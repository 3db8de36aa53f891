package app

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func TestVersioningValidate(t *testing.T) {
	cases := []struct {
		name string
		v    Versioning
		err  string
	}{
		{"unversioned", Versioning{}, ""},
		{"pinned by default", Versioning{DeploymentName: "agents", BuildID: "v1.2.0"}, ""},
		{"auto-upgrade", Versioning{DeploymentName: "agents", BuildID: "abc123", Behavior: BehaviorAutoUpgrade}, ""},
		{"a build id alone", Versioning{BuildID: "v1"}, "without --deployment-name"},
		{"a behaviour alone", Versioning{Behavior: BehaviorPinned}, "without --deployment-name"},
		{"no build id", Versioning{DeploymentName: "agents"}, "--build-id is empty"},
		{"a dot in the name", Versioning{DeploymentName: "agents.prod", BuildID: "v1"}, "must not contain '.' or ':'"},
		{"a colon in the name", Versioning{DeploymentName: "agents:prod", BuildID: "v1"}, "must not contain '.' or ':'"},
		{"spaces", Versioning{DeploymentName: "agents", BuildID: "v 1"}, "--build-id \"v 1\": must not contain spaces"},
		{"a control character", Versioning{DeploymentName: "agents", BuildID: "v1\x01"}, "must be printable"},
		{"a reserved prefix", Versioning{DeploymentName: "__agents", BuildID: "v1"}, "must not start with"},
		{"too long", Versioning{DeploymentName: strings.Repeat("a", 256), BuildID: "v1"}, "at most 255"},
		{"an unknown behaviour", Versioning{DeploymentName: "agents", BuildID: "v1", Behavior: "sticky"}, `--versioning-behavior "sticky"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestVersioningApply(t *testing.T) {
	opts := Versioning{}.Apply(worker.Options{MaxConcurrentActivityExecutionSize: 3})
	require.False(t, opts.DeploymentOptions.UseVersioning, "unversioned: options unchanged")
	require.Equal(t, 3, opts.MaxConcurrentActivityExecutionSize)

	opts = Versioning{DeploymentName: "agents", BuildID: "b1"}.Apply(worker.Options{})
	require.True(t, opts.DeploymentOptions.UseVersioning)
	require.Equal(t, worker.WorkerDeploymentVersion{DeploymentName: "agents", BuildID: "b1"}, opts.DeploymentOptions.Version)
	require.Equal(t, workflow.VersioningBehaviorPinned, opts.DeploymentOptions.DefaultVersioningBehavior)

	opts = Versioning{DeploymentName: "agents", BuildID: "b1", Behavior: BehaviorAutoUpgrade}.Apply(worker.Options{})
	require.Equal(t, workflow.VersioningBehaviorAutoUpgrade, opts.DeploymentOptions.DefaultVersioningBehavior)
	require.Equal(t, "deployment version agents:b1, runs auto-upgrade", Versioning{DeploymentName: "agents", BuildID: "b1", Behavior: BehaviorAutoUpgrade}.String())
}
