package refs_test

import (
	"encoding/json"
	"fmt"

	"github.com/unstuck-dev/unstuck/refs"
)

// A model's tool call names values of the run instead of copying them:
// Resolve replaces each reference by its value before the call runs.
func ExampleResolve() {
	state := map[string]any{}
	// An earlier call with _outputPath "†state.user" wrote its result.
	out, _ := refs.ParseOutputPath("†state.user")
	refs.Write(state, out, map[string]any{"id": 42, "email": "ada@example.com"})

	input := map[string]any{"subject": "Welcome"}
	args := map[string]any{
		"to":      "†state.user.email",
		"subject": "†input.subject",
		"cc":      "†state.manager.email || †state.user.email",
		"body":    "Hello!",
	}

	resolved, errs := refs.Resolve(args, state, input)
	b, _ := json.Marshal(resolved)
	fmt.Println(string(b), len(errs))

	_, errs = refs.Resolve(map[string]any{"to": "†state.nobody.email"}, state, input)
	fmt.Println(errs[0])
	// Output:
	// {"body":"Hello!","cc":"ada@example.com","subject":"Welcome","to":"ada@example.com"} 0
	// argument /to: unresolved reference †state.nobody.email: no such value in the run
}
