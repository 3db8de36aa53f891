package activities

import (
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

func TestContextExceededIsToldFromTheProvidersWords(t *testing.T) {
	apiErr := func(status int, code any, msg string) error {
		return &openai.APIError{HTTPStatusCode: status, Code: code, Message: msg}
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"OpenAI", apiErr(400, "context_length_exceeded", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."), true},
		{"vLLM", apiErr(400, nil, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"), true},
		{"Anthropic", apiErr(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), true},
		{"Gemini", apiErr(400, nil, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."), true},
		{"a proxy's 413", apiErr(413, nil, "Request too large: too many tokens"), true},
		{"another bad request", apiErr(400, "invalid_value", "messages[1].role is invalid"), false},
		{"a rate limit", apiErr(429, "rate_limit_exceeded", "too many tokens per minute"), false},
		{"not an API error", errors.New("maximum context length"), false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, contextExceeded(tc.err), tc.name)
	}
}

// A provider refusing a prompt counted under the budget answers a run that
// compacts with the count, unsent; a run that does not compact gets an
// error that says what to configure.
func TestAPromptTheProviderRefusesAsTooLong(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(scriptedmodel.Reply("never"))},
		scriptedmodel.WithContextWindow(20))
	agent := f.agent(f.model("small"))
	long := Message{Role: "user", Content: strings.Repeat("many words here ", 20)}

	reply, err := f.call(ModelRequest{Agent: agent, Delta: []Message{long}, Tools: oneTool, PromptBudget: 100_000})
	require.NoError(t, err)
	require.NotNil(t, reply.OverBudget)
	require.True(t, reply.OverBudget.Refused)
	require.Equal(t, 100_000, reply.OverBudget.Budget)
	require.Greater(t, reply.OverBudget.Tokens, 20)

	_, err = f.call(ModelRequest{Agent: agent, Delta: []Message{long}, Tools: oneTool})
	app := requireClass(t, err, ModelContextExceededError, false)
	require.Contains(t, app.Error(), "HTTP 400")
	require.Contains(t, app.Error(), "give the agent policies.context")
	require.Len(t, f.srv.PromptTokens(), 2)
}

var oneTool = []ToolDef{{Name: "lookup", Parameters: []byte(`{"type": "object"}`)}}
