package scriptedmodel

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// The chat demo's concierge answers the last thing the user said, from
// the whole conversation, the same way every time.
func TestConciergeAnswersWhatWasSaid(t *testing.T) {
	sys := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "You are a hotel concierge."}
	said := func(s string) openai.ChatCompletionMessage { return user(s) }
	answered := func(s string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s}
	}
	search := func(id, city string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{
			ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "find_hotels", Arguments: `{"city":"` + city + `"}`},
		}}}
	}
	const lisbon = `{"city":"Lisbon","hotels":[{"name":"Casa Lisbon","area":"near the river","stars":4,"price_per_night_usd":120},` +
		`{"name":"Lisbon Garden Inn","area":"near the park","stars":3,"price_per_night_usd":95}]}`
	for _, tt := range []struct {
		name     string
		msgs     []openai.ChatCompletionMessage
		call     string // the find_hotels arguments it sends, "" for none
		contains []string
		lacks    []string
	}{
		{name: "a greeting gets a greeting and what it can do",
			msgs:     []openai.ChatCompletionMessage{sys, said("Hi there!")},
			contains: []string{"Hello!", "scripted test double", "find hotels in a city"}},
		{name: "a greeting later in the conversation is answered again, not as the first",
			msgs:     []openai.ChatCompletionMessage{sys, said("Hi"), answered("Hello! ..."), said("hello?")},
			contains: []string{"Hello again!"}},
		{name: "a hotel in a city is a search of that city",
			msgs: []openai.ChatCompletionMessage{sys, said("Hi"), answered("Hello!"), said("I need a hotel in lisbon for Friday")},
			call: `{"city":"Lisbon"}`},
		{name: "a city of two words",
			msgs: []openai.ChatCompletionMessage{sys, said("a room in New York near the park, please")},
			call: `{"city":"New York"}`},
		{name: "a hotel in no city named asks which",
			msgs:     []openai.ChatCompletionMessage{sys, said("Any hotel in the centre?")},
			contains: []string{"Which city"}},
		{name: "a hotel with no city named is looked for where the conversation was",
			msgs: []openai.ChatCompletionMessage{sys, said("a hotel in Porto"), search("c1", "Porto"), toolMsg("c1", `{"city":"Porto","hotels":[]}`),
				answered("I found no hotels there"), said("any other hotels?")},
			call: `{"city":"Porto"}`},
		{name: "the search's result is told, naming each hotel",
			msgs:     []openai.ChatCompletionMessage{sys, said("a hotel in Lisbon"), search("c1", "Lisbon"), toolMsg("c1", lisbon)},
			contains: []string{"I found 2 hotels in Lisbon", "Casa Lisbon, 4 stars, near the river, 120 USD a night", "Lisbon Garden Inn"}},
		{name: "a failed search is told",
			msgs:     []openai.ChatCompletionMessage{sys, said("a hotel in Lisbon"), search("c1", "Lisbon"), toolMsg("c1", `{"error":"down"}`)},
			contains: []string{"could not search hotels", "down"}},
		{name: "thanks gets a closing line naming the city last searched",
			msgs: []openai.ChatCompletionMessage{sys, said("a hotel in Lisbon"), search("c1", "Lisbon"), toolMsg("c1", lisbon),
				answered("I found 2 hotels in Lisbon"), said("Thanks, that's perfect!")},
			contains: []string{"You're welcome! Enjoy your stay in Lisbon."}},
		{name: "thanks with no search",
			msgs:     []openai.ChatCompletionMessage{sys, said("thank you")},
			contains: []string{"You're welcome!"}, lacks: []string{"Enjoy"}},
		{name: "a message that joined after the search's result: the hotels, then its answer",
			msgs:     []openai.ChatCompletionMessage{sys, said("a hotel in Lisbon"), search("c1", "Lisbon"), toolMsg("c1", lisbon), said("thanks!")},
			contains: []string{"I found 2 hotels in Lisbon", "Casa Lisbon", "You're welcome! Enjoy your stay in Lisbon."}},
		{name: "a new search that joined after a result: the hotels told, the next city searched",
			msgs:     []openai.ChatCompletionMessage{sys, said("a hotel in Lisbon"), search("c1", "Lisbon"), toolMsg("c1", lisbon), said("and a hotel in Porto?")},
			call:     `{"city":"Porto"}`,
			contains: []string{"I found 2 hotels in Lisbon"}},
		{name: "anything else is quoted, with what it can do",
			msgs:     []openai.ChatCompletionMessage{sys, said("Hi"), answered("Hello!"), said("What's the weather like?")},
			contains: []string{`You said "What's the weather like?"`, "find hotels in a city"}},
		{name: "the engine's notes are not what the user said",
			msgs:     []openai.ChatCompletionMessage{sys, said("Hello"), said("[unstuck] The oldest turns of this conversation were summarized")},
			contains: []string{"Hello!"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := openai.ChatCompletionRequest{Model: ConciergeDemo, Messages: tt.msgs}
			turn := concierge(req)
			require.Equal(t, turn, concierge(req), "the same answer every time")
			if tt.call == "" {
				require.Empty(t, turn.Calls)
			} else {
				require.Len(t, turn.Calls, 1)
				require.Equal(t, "find_hotels", turn.Calls[0].Name)
				require.JSONEq(t, tt.call, turn.Calls[0].Args)
			}
			for _, want := range tt.contains {
				require.Contains(t, turn.Content, want)
			}
			for _, not := range tt.lacks {
				require.NotContains(t, turn.Content, not)
			}
		})
	}
}

// Through the server, as the engine asks it: streamed in pieces, labelled.
func TestConciergeIsServedByName(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{user("hello")}
	ch := converse(t, c, ConciergeDemo, &msgs)
	require.Contains(t, ch.Message.Content, "Hello!")
	msgs = append(msgs, user("a hotel in Lisbon"))
	onlyCall(t, converse(t, c, ConciergeDemo, &msgs), "find_hotels")
}
