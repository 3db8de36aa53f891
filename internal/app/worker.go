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
	return config.Load(path, config.Options{KnownBuiltin: builtin.Known, SlowBuiltin: builtin.Slow})
}

// RegisterWorkflow adds AgentWorkflow under its contract name to a worker
// or a replayer.
func RegisterWorkflow(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.AgentWorkflow, workflow.RegisterOptions{Name: workflows.WorkflowName})
}
