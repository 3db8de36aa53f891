package app

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/workflows"
)

// LoadConfig loads and validates an agent config file, knowing the
// worker's built-in tools.
func LoadConfig(path string) (*config.File, error) {
	return config.Load(path, ConfigOptions())
}

// WorkflowTypes are the workflow types RegisterWorkflow registers (what
// a replay of this build can replay).
func WorkflowTypes() []string { return []string{workflows.WorkflowName} }

// RegisterWorkflow adds AgentWorkflow under its contract name to a worker
// or a replayer.
func RegisterWorkflow(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.AgentWorkflow, workflow.RegisterOptions{Name: workflows.WorkflowName})
}

// ConfigOptions are what loading a config needs from this program: its
// built-in tools, and which of them may run long (not local by default).
func ConfigOptions() config.Options {
	return config.Options{KnownBuiltin: builtin.Known, SlowBuiltin: builtin.Slow}
}
