package deskchain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// Model is the model name the chain's config asks for.
const Model = "chain"

// Answer is the last desk's output.
const Answer = "answered by the last desk"

// Config is the chain's config file, its model at modelURL.
func Config(modelURL string, desks int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `
model: { base_url: %q, name: %s }
tools:
  - { name: note, builtin: noop, parameters: { type: object } }
agents:
`, modelURL, Model)
	for i := range desks {
		handoffs := "[]"
		if i+1 < desks {
			handoffs = "[" + Desk(i+1) + "]"
		}
		fmt.Fprintf(&b, "  - { name: %s, instructions: \"You are desk %d.\", tools: [note], handoffs: %s }\n", Desk(i), i, handoffs)
	}
	return b.String()
}

// Desk is the name of desk i.
func Desk(i int) string { return fmt.Sprintf("desk%03d", i) }

var deskNumber = regexp.MustCompile(`You are desk (\d+)\.`)

// Script is the desks' model: four notes since the run came to the desk
// asked, then a handoff to the next desk or, at the last (last), Answer.
func Script(last int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		desk := 0
		if m := deskNumber.FindStringSubmatch(req.Messages[0].Content); m != nil {
			desk, _ = strconv.Atoi(m[1])
		}
		notes := 0
		for _, m := range req.Messages {
			switch {
			case m.Role == "user" && strings.HasPrefix(m.Content, "[unstuck] This task was handed over"):
				notes = 0
			case m.Role == "tool":
				notes++
			}
		}
		switch {
		case notes < 4:
			return scriptedmodel.CallTurn("note", map[string]any{"desk": desk, "i": notes, "note": strings.Repeat("n", 1<<10)})
		case desk < last:
			return scriptedmodel.CallTurn("handoff", map[string]string{"to": Desk(desk + 1), "reason": "out_of_scope",
				"summary": fmt.Sprintf("desk %d is done with it", desk), "suggested_next_action": "go on"})
		}
		return scriptedmodel.Reply(Answer)
	}
}
