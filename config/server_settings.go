package config

// ServerSettings are the Temporal server's dynamic config values an
// unstuck deployment should set, each with why. The dev servers that
// `make demo`, `make test` and `make bench` start set them
// (DevServerArgs); a cluster sets them in its dynamic config file.
var ServerSettings = []struct{ Key, Value, Why string }{
	{"system.enableActivityEagerExecution", "true",
		"a workflow task that schedules an activity on its own task queue takes the activity back in its answer: the next model request starts without a trip through matching (about half of a step's wait on the dev server)"},
	{"system.enableEagerWorkflowStart", "true",
		"a starter in a worker's process (the SDK's EnableEagerStart) runs a run's first workflow task without waiting for a poller"},
}

// DevServerArgs are ServerSettings as `temporal server start-dev` flags.
func DevServerArgs() []string {
	var args []string
	for _, s := range ServerSettings {
		args = append(args, "--dynamic-config-value", s.Key+"="+s.Value)
	}
	return args
}
