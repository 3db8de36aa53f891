package app

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// The first version of a deployment makes itself current; a deployment
// that routes anywhere already is the operator's, unless forced (the demo
// on its own server).
func TestBootstrapDecide(t *testing.T) {
	v := Versioning{DeploymentName: "unstuck", BuildID: "b2"}
	ver := func(id string) *worker.WorkerDeploymentVersion {
		return &worker.WorkerDeploymentVersion{DeploymentName: "unstuck", BuildID: id}
	}
	registered := []client.WorkerDeploymentVersionSummary{{Version: *ver("b1")}, {Version: *ver("b2")}}
	onlyB1 := registered[:1]
	cases := []struct {
		name  string
		info  *client.WorkerDeploymentInfo
		force bool
		want  bootstrapAction
	}{
		{"the deployment is not known yet", nil, false, bootstrapWait},
		{"no current, this version not registered yet", &client.WorkerDeploymentInfo{VersionSummaries: onlyB1}, false, bootstrapWait},
		{"no current, this version registered", &client.WorkerDeploymentInfo{VersionSummaries: registered}, false, bootstrapSet},
		{"this version is current", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b2")}}, false, bootstrapDone},
		{"another version is current: never changed", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b1")}}, false, bootstrapDone},
		{"a version ramps from unversioned workers: the operator's", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{RampingVersion: ver("b1"), RampingVersionPercentage: 10}}, false, bootstrapDone},
		{"this version ramps: the operator makes it current", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b1"), RampingVersion: ver("b2")}}, false, bootstrapDone},
		{"forced over another current version", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b1")}}, true, bootstrapSet},
		{"forced, not registered yet", &client.WorkerDeploymentInfo{VersionSummaries: onlyB1,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b1")}}, true, bootstrapWait},
		{"forced, already current", &client.WorkerDeploymentInfo{VersionSummaries: registered,
			RoutingConfig: client.WorkerDeploymentRoutingConfig{CurrentVersion: ver("b2")}}, true, bootstrapDone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, bootstrapDecide(tc.info, v, tc.force))
		})
	}
}

// Each outcome's log line says what the worker did and, when it left the
// routing alone, the command that would route new runs to this build.
func TestBootstrapResultString(t *testing.T) {
	v := Versioning{DeploymentName: "unstuck", BuildID: "b2"}
	set := "temporal worker deployment set-current-version --deployment-name unstuck --build-id b2 -y"
	cases := []struct {
		name string
		r    BootstrapResult
		want []string
	}{
		{"made current", BootstrapResult{Made: true, Current: "b2"}, []string{"had no current version: made this build (b2) current"}},
		{"already current", BootstrapResult{Current: "b2"}, []string{"this build (b2) is the current version of worker deployment unstuck"}},
		{"another current", BootstrapResult{Current: "b1"}, []string{"current version is b1; left as it is", set, "set-ramping-version"}},
		{"unversioned current with a ramp", BootstrapResult{Ramping: "b1", RampingPercent: 10}, []string{"ramping to b1 (10%) from unversioned workers", set}},
		{"this build ramping", BootstrapResult{Current: "b1", Ramping: "b2", RampingPercent: 25}, []string{"ramping in worker deployment unstuck (25% of new runs)", set}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.r.String(v)
			for _, w := range tc.want {
				require.Contains(t, s, w)
			}
		})
	}
}
