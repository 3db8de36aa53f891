package testsuite

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// noteConfig is a candidate whose note tool is a POST (the default
// method) whose effect the file never declares.
const noteConfig = `
model: { base_url: "{{MODEL}}", name: noter }
tools:
  - { name: note, http: { url: "{{TOOLS}}/note" }, parameters: { type: object } }
agents:
  - { name: noter, instructions: Take notes., tools: [note] }
`

// `eval run --unrecorded live` calls for real only tools declared
// effect: read. A tool whose effect the config leaves to its default may
// write (here a POST), so a case whose agent has one is refused before
// anything runs, naming the case file, the tool and what to declare; its
// unrecorded call never reaches the tool.
func TestEvalRunLiveRefusesUndeclaredEffect(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"saved": "n2"})
	})
	// The candidate notes something the recording does not have.
	noter := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallTurn("note", map[string]any{"text": "pay rent"})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"saved": "n2"})
	}
	model := startModel(t, map[string]scriptedmodel.Script{"noter": noter}, "")
	dir := t.TempDir()
	cases := writeEvalCases(t, dir, map[string]string{"note": `
agent: noter
task: Note that I must buy milk.
tools:
  - { tool: note, args: { text: buy milk }, result: { saved: n1 } }
`})
	cfg := filepath.Join(dir, "noter.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(strings.NewReplacer("{{MODEL}}", model.URL(), "{{TOOLS}}", tools.URL).Replace(noteConfig)), 0o644))

	stdout, code, stderr := unstuckEval(t, cases, cfg, "--unrecorded", "live", "--timeout", "30s")
	require.Empty(t, tools.requests("/note"), "no unrecorded call of a tool of undeclared effect is made live\nstdout: %s\nstderr: %s", stdout, stderr)
	require.Equal(t, 2, code, "refused, the eval could not run: %s", stderr)
	require.Contains(t, stderr, filepath.Join(cases, "note.yaml")+": agent noter has the tool note, whose effect "+cfg+
		" does not declare: --unrecorded live calls for real only tools declared effect: read; declare note's effect (effect: read if it only reads) or use --unrecorded error")
	require.NotContains(t, stderr, "eval: [1/", "no run started")
}
