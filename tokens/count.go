package tokens

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// perMessage is what a chat message costs besides its text (OpenAI's
// framing of role and separators), and perCall a tool call besides its
// name and arguments.
const (
	perMessage = 4
	perCall    = 8
	perReply   = 3 // every reply is primed with the assistant's header
)

var (
	mu     sync.Mutex
	codecs = map[tokenizer.Encoding]tokenizer.Codec{}
)

// Count is the number of tokens of text for the model named (by its
// family: o200k_base for the gpt-4o, gpt-4.1, gpt-5 and o-series models,
// cl100k_base for the others, which is close for most modern models).
func Count(model, text string) int {
	if text == "" {
		return 0
	}
	n, err := codecFor(model).Count(text)
	if err != nil {
		// Invalid UTF-8: about one token per byte is an upper bound.
		return len(text)
	}
	return n
}

// Message is a chat message as Messages counts it.
type Message struct {
	Role, Content, ToolCallID string
	Calls                     []Call
}

// Call is a tool call of an assistant message.
type Call struct{ Name, Args string }

// Messages counts a conversation as the provider bills its prompt: each
// message's text, its calls, and the framing around them; the answer's
// first element is the whole, the rest one count per message.
func Messages(model string, msgs []Message) (total int, each []int) {
	each = make([]int, len(msgs))
	for i, m := range msgs {
		n := perMessage + Count(model, m.Role) + Count(model, m.Content) + Count(model, m.ToolCallID)
		for _, c := range m.Calls {
			n += perCall + Count(model, c.Name) + Count(model, c.Args)
		}
		each[i] = n
		total += n
	}
	return total + perReply, each
}

func codecFor(model string) tokenizer.Codec {
	enc := encodingOf(model)
	mu.Lock()
	defer mu.Unlock()
	if c, ok := codecs[enc]; ok {
		return c
	}
	c, err := tokenizer.Get(enc)
	if err != nil {
		panic("tokens: embedded encoding " + string(enc) + ": " + err.Error())
	}
	codecs[enc] = c
	return c
}

// encodingOf picks the encoding of a model family.
func encodingOf(model string) tokenizer.Encoding {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" as routers name it
	}
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss"} {
		if strings.HasPrefix(m, p) {
			return tokenizer.O200kBase
		}
	}
	return tokenizer.Cl100kBase
}

// MessagesAtMost bounds Messages' total without tokenizing: a token
// covers at least one byte, so the bytes plus the framing are never fewer
// than the tokens. Counting a prompt that fits its budget by this bound
// is work saved on every request.
func MessagesAtMost(msgs []Message) int {
	n := perReply
	for _, m := range msgs {
		n += perMessage + len(m.Role) + len(m.Content) + len(m.ToolCallID)
		for _, c := range m.Calls {
			n += perCall + len(c.Name) + len(c.Args)
		}
	}
	return n
}
