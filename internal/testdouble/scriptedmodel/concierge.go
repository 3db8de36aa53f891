package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// ConciergeDemo is the conversation of `unstuck demo chat`: a hotel
// concierge that answers what the user last said, from the whole
// conversation. A greeting gets a greeting and what it can do; a request
// for a hotel in a city a find_hotels call, then a reply naming the
// hotels its result holds; thanks a closing line naming the city last
// searched; anything else a reply quoting it. It is a test double: it
// matches words, it does not understand them.
const ConciergeDemo = "concierge-demo"

// conciergePace writes each reply in pieces, so a person sees it written
// and has a moment to send a message while the agent works.
const (
	conciergePieces = 6
	conciergeDelay  = 150 * time.Millisecond
)

var (
	hotelWords    = regexp.MustCompile(`(?i)\b(hotels?|rooms?|accommodation|place to stay|somewhere to stay)\b`)
	thanksWords   = regexp.MustCompile(`(?i)\b(thanks|thank you|thx|cheers)\b`)
	greetingWords = regexp.MustCompile(`(?i)^\W*(hi|hello|hey|good (morning|afternoon|evening))\b`)
	// placeWords finds where a city may be named: the words after "in",
	// "at", "near" or "around".
	placeWords = regexp.MustCompile(`(?i)\b(?:in|at|near|around)\s+([\p{L}'-]+(?:\s+[\p{L}'-]+){0,2})`)
)

// notACity are words after "in" that name no city ("in the centre").
var notACity = map[string]bool{
	"a": true, "an": true, "the": true, "my": true, "your": true, "some": true, "town": true,
	"city": true, "centre": true, "center": true, "there": true, "here": true,
}

func concierge(req openai.ChatCompletionRequest) Turn {
	said, saidAfterResults := lastUserMessage(req)
	var found string
	if results := LastToolResults(req); len(results) > 0 {
		// The last turn's calls have results the user has not been told.
		found = hotelsFound(results)
		if !saidAfterResults {
			return paced(found)
		}
	}
	answer := answerTo(req, said)
	answer.Content = strings.TrimSpace(found + "\n\n" + answer.Content)
	if len(answer.Calls) == 0 {
		return paced(answer.Content)
	}
	return answer
}

// answerTo answers what the user said, reading the conversation before it.
func answerTo(req openai.ChatCompletionRequest, said string) Turn {
	switch {
	case hotelWords.MatchString(said):
		city := cityIn(said)
		if city == "" {
			city = lastCitySearched(req)
		}
		if city == "" {
			return Reply(`Which city should I look in? For example: "a hotel in Lisbon".`)
		}
		return CallTurn("find_hotels", map[string]any{"city": city})
	case thanksWords.MatchString(said):
		if city := lastCitySearched(req); city != "" {
			return Reply(fmt.Sprintf("You're welcome! Enjoy your stay in %s. Ask me again whenever you need a room.", city))
		}
		return Reply("You're welcome! Ask me whenever you need a room.")
	case greetingWords.MatchString(said):
		hello := "Hello!"
		if AssistantTurns(req) > 0 {
			hello = "Hello again!"
		}
		return Reply(hello + ` I'm the demo concierge (a scripted test double, not a real model). I can find hotels in a city: try "a hotel in Lisbon".`)
	}
	return Reply(fmt.Sprintf(`You said %q. I'm only a scripted demo concierge: I can find hotels in a city (try "a hotel in Lisbon"), not much more.`, said))
}

// lastUserMessage is the last thing the user said (the engine's own
// "[unstuck]" notes are not the user's), and whether it came after the
// last turn's tool results.
func lastUserMessage(req openai.ChatCompletionRequest) (said string, afterResults bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		switch {
		case m.Role == openai.ChatMessageRoleTool:
			afterResults = afterResults || said != ""
		case m.Role == openai.ChatMessageRoleAssistant && said != "":
			return said, afterResults
		case m.Role == openai.ChatMessageRoleUser && said == "" && !strings.HasPrefix(text(m), "[unstuck]"):
			said = strings.TrimSpace(text(m))
			afterResults = false
		}
	}
	return said, afterResults
}

// hotelsFound tells the user what find_hotels found, or why it did not.
func hotelsFound(results []ToolResult) string {
	if r, ok := failed(results); ok {
		return fmt.Sprintf("I could not search hotels: %s failed: %s", r.Name, r.Content)
	}
	r, ok := find(results, "find_hotels")
	if !ok {
		return "I have no step for the result of " + results[0].Name + "."
	}
	var found struct {
		City   string `json:"city"`
		Hotels []struct {
			Name  string `json:"name"`
			Area  string `json:"area"`
			Stars int    `json:"stars"`
			Price int    `json:"price_per_night_usd"`
		} `json:"hotels"`
	}
	if json.Unmarshal([]byte(r.Content), &found) != nil || len(found.Hotels) == 0 {
		return "I found no hotels there: " + r.Content
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I found %d hotels in %s (made-up demo data):", len(found.Hotels), found.City)
	for _, h := range found.Hotels {
		fmt.Fprintf(&b, "\n- %s, %d stars, %s, %d USD a night", h.Name, h.Stars, h.Area, h.Price)
	}
	b.WriteString("\nShall I look anywhere else?")
	return b.String()
}

// cityIn is the city a message names after "in", "at", "near" or
// "around", capitalised; a second or third word counts when it is
// capitalised ("New York", not "Lisbon for Friday"). "" when it names none.
func cityIn(said string) string {
	for _, m := range placeWords.FindAllStringSubmatch(said, -1) {
		words := strings.Fields(m[1])
		if notACity[strings.ToLower(words[0])] {
			continue
		}
		city := []string{capitalised(words[0])}
		for _, w := range words[1:] {
			if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
				break
			}
			city = append(city, w)
		}
		return strings.Join(city, " ")
	}
	return ""
}

// lastCitySearched is the city of the conversation's last find_hotels
// call, "" when there is none.
func lastCitySearched(req openai.ChatCompletionRequest) string {
	city := ""
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			var args struct {
				City string `json:"city"`
			}
			if c.Function.Name == "find_hotels" && json.Unmarshal([]byte(c.Function.Arguments), &args) == nil && args.City != "" {
				city = args.City
			}
		}
	}
	return city
}

func capitalised(w string) string {
	r, size := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[size:]
}

// paced is a content reply written in pieces, a moment apart.
func paced(content string) Turn {
	return Turn{Content: content, ContentPieces: conciergePieces, ContentDelay: conciergeDelay}
}
