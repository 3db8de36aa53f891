package testsuite

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A tool name the model chose and a tool's error text can carry terminal
// escape codes (a title set, the screen cleared): the CLI shows them
// written out, never as the bytes a terminal acts on, in follow, trace and
// status alike. Both run shapes.
func TestTheCLIPrintsNoTerminalControlsAModelOrToolWrote(t *testing.T) {
	t.Parallel()
	const badName, badError = "look\x1b]0;pwned\x07", "\x1b[2Jwiped"
	for _, shape := range []struct{ name, agent string }{
		{"free-form", `{ name: looker, instructions: Look., tools: [lookup] }`},
		{"graph", `{ name: looker, instructions: Look., tools: [lookup], graph: { start: L, nodes: { L: { llm: true }, E: { end: true } }, edges: [ { from: L, to: E } ] } }`},
	} {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeJSON(w, 400, map[string]string{"error": badError})
			})
			looker := func(req openaiRequest) scriptedmodel.Turn {
				if scriptedmodel.AssistantTurns(req) == 0 {
					return scriptedmodel.CallsTurn(scriptedmodel.NewCall(badName, map[string]any{}), scriptedmodel.NewCall("lookup", map[string]any{"q": "x"}))
				}
				return scriptedmodel.Reply("done")
			}
			cfg := `
model: { base_url: "{{MODEL}}", name: looker }
tools:
  - { name: lookup, http: { url: "` + tools.URL + `/lookup" }, parameters: { type: object } }
agents:
  - ` + shape.agent + "\n"
			s := newStack(t, cfg, map[string]scriptedmodel.Script{"looker": looker})
			run := s.start(workflows.AgentInput{Agent: "looker", Task: "look"})
			_, err := s.result(run)
			require.NoError(t, err)

			cli := func(args ...string) string {
				out := runCommand(t, exec.Command(filepath.Join(binaries(t), "unstuck"), append(args, "--address", serverAddress)...))
				require.Zero(t, out.code, "%v: %s", args, out.stderr)
				return out.stdout + out.stderr
			}
			follow := cli("follow", run.GetID())
			requireNoControls(t, "follow", follow)
			require.Contains(t, follow, `look\x1b]0;pwned\x07`, "follow shows the tool's name written out")
			require.Contains(t, follow, `\x1b[2Jwiped`, "follow shows the tool's error written out")
			trace := cli("trace", run.GetID())
			requireNoControls(t, "trace", trace)
			require.Contains(t, trace, `\x1b[2Jwiped`)
			requireNoControls(t, "trace --format mermaid", cli("trace", run.GetID(), "--format", "mermaid"))
			requireNoControls(t, "status", cli("status", run.GetID()))
		})
	}
}

// requireNoControls fails when out holds a byte a terminal acts on: an
// ESC, a BEL, a carriage return or a C1 control.
func requireNoControls(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range []string{"\x1b", "\x07", "\r", "\u009b", "\x9b"} {
		require.NotContains(t, out, c, "%s printed %q raw:\n%s", what, c, out)
	}
}
