package scriptedmodel

import openai "github.com/sashabaranov/go-openai"

// DoneContent is the content reply of a Sequence that has run out of turns.
const DoneContent = "done"

// Sequence is a Script answering turns in order. The position is the number
// of assistant messages already in the conversation, not a counter in the
// server, so a retried or replayed request gets the same turn again. Past the
// last turn it answers the content reply DoneContent, which ends the run
// instead of leaving it waiting for a model that has nothing more to say.
func Sequence(turns ...Turn) Script {
	return func(req openai.ChatCompletionRequest) Turn {
		if i := AssistantTurns(req); i < len(turns) {
			return turns[i]
		}
		return Reply(DoneContent)
	}
}
