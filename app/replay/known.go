package replay

import (
	"reflect"
	"runtime"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/app"
)

// WorkflowTypes are the workflow types this build replays: the names
// app.RegisterWorkflow registers, read from it so the two never differ.
func WorkflowTypes() []string {
	var names typeNames
	app.RegisterWorkflow(&names)
	slices.Sort(names)
	return names
}

// typeNames is a workflow registry that only keeps the names registered.
type typeNames []string

func (n *typeNames) RegisterWorkflow(w any) {
	*n = append(*n, functionName(w))
}

func (n *typeNames) RegisterWorkflowWithOptions(w any, opts workflow.RegisterOptions) {
	if opts.Name == "" {
		n.RegisterWorkflow(w)
		return
	}
	*n = append(*n, opts.Name)
}

func (n *typeNames) RegisterDynamicWorkflow(any, workflow.DynamicRegisterOptions) {}

// functionName is the type name the SDK gives a workflow function
// registered without a name: the function's own, package dropped.
func functionName(w any) string {
	name := runtime.FuncForPC(reflect.ValueOf(w).Pointer()).Name()
	name = strings.TrimSuffix(name, "-fm")
	return name[strings.LastIndex(name, ".")+1:]
}
