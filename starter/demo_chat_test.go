package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
)

// What `unstuck demo chat` is made of, without a server: its agent, its
// command, the hold that times its queued message, and the check of its
// trace. The chat itself runs on the real server in
// testsuite/processes_test.go (TestDemoChatRunsEndToEnd).

// The concierge is a conversation that enqueues, with find_hotels, on the
// scripted model the demo started, whatever OPENAI_BASE_URL says.
func TestDemoChatConfig(t *testing.T) {
	f, getenv := demoFileWithARealModel(t)
	r, err := f.Resolve(demoChatAgent, getenv)
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:4321/v1", r.Model.BaseURL)
	require.Equal(t, scriptedmodel.ConciergeDemo, r.Model.Name)
	require.Empty(t, r.Model.APIKey(getenv), "no key goes to the test double")
	require.NotNil(t, r.Agent.Conversation)
	require.Equal(t, 10*time.Minute, r.Agent.Conversation.IdleTimeout.D())
	require.Equal(t, config.DoubleTextEnqueue, r.Agent.DoubleText)
	tool, ok := r.AgentTool("find_hotels")
	require.True(t, ok)
	require.Equal(t, "find_hotels", tool.Builtin)
}

func TestDemoChatCommand(t *testing.T) {
	r := runCLI(t, noDial(t), "demo", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "unstuck demo chat")

	r = runCLI(t, noDial(t), "demo", "chat", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{"unstuck chat concierge", "TEST DOUBLE", "double_text: enqueue", "awaiting_user", "--once", "--by", "--temporal", demoChatLines[2]} {
		require.Contains(t, r.stdout, want)
	}
	for args, want := range map[string]string{
		"demo chta":       "`unstuck demo chat` (a conversation)",
		"demo chat extra": "takes no arguments",
	} {
		r := runCLI(t, noDial(t), strings.Fields(args)...)
		require.Equal(t, exitUsage, r.code, args)
		require.Contains(t, r.stderr, want, args)
	}
	r = runCLI(t, noDial(t), "demo", "chat", "--worker", "/does/not/exist", "--temporal", "/does/not/exist/either", "--data", t.TempDir())
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "not found")
}

// The hold keeps an answer to a tool's result until let go, and changes
// nothing of what it is; other requests, and an unarmed hold, pass.
func TestReplyHold(t *testing.T) {
	next := func(openai.ChatCompletionRequest) scriptedmodel.Turn { return scriptedmodel.Reply("the answer") }
	asked := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}}}
	results := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "a hotel in Lisbon"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "find_hotels", Arguments: "{}"}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: `{"hotels":[]}`},
	}}

	require.Equal(t, "the answer", newReplyHold(false).script(next)(results).Content, "not armed: nothing held")

	h := newReplyHold(true)
	script := h.script(next)
	require.Equal(t, "the answer", script(asked).Content, "no tool result: not held")
	answered := make(chan scriptedmodel.Turn, 1)
	go func() { answered <- script(results) }()
	<-h.reached
	select {
	case <-answered:
		t.Fatal("answered before the hold was let go")
	default:
	}
	h.let()
	require.Equal(t, "the answer", (<-answered).Content)
	h.let() // twice is harmless
	require.Equal(t, "the answer", script(results).Content, "let go: from now on")
}

// The chat view echoes a scripted line as a terminal would, and says a
// message sent while the run works is queued.
func TestChatViewEchoesAndSaysQueued(t *testing.T) {
	var out bytes.Buffer
	v := newChatView(&out)
	v.echo("Hello!")
	v.show(phaseEvent(signals.PhaseAwaitingUser))
	v.echo("a hotel in Lisbon")
	v.sent(signals.MessageResult{Queued: 1})
	v.echo("thanks")
	v.sent(signals.MessageResult{Queued: 1})
	v.sent(signals.MessageResult{Queued: 2})
	require.Equal(t, "you> Hello!\nyou> a hotel in Lisbon\nyou> thanks\n"+
		"  (queued: the agent answers it after its current step)\n"+
		"  (queued: 2 messages wait; the agent answers them after its current step)\n", out.String())

	// At the prompt, a message behind another is queued too.
	out.Reset()
	v.show(phaseEvent(signals.PhaseAwaitingUser))
	out.WriteString("and one more\n") // the terminal echoes what the person typed
	v.typedLine()
	v.sent(signals.MessageResult{Queued: 2})
	require.Equal(t, "you> and one more\n  (queued: 2 messages wait; the agent answers them after its current step)\n", out.String())
}

// A reply the queued note broke goes on on a line of its own, marked.
func TestChatViewGoesOnWithAReplyAfterTheQueuedNote(t *testing.T) {
	var out bytes.Buffer
	v := newChatView(&out)
	v.show(textOf("n7", "I found 3 hotels", 0))
	v.sent(signals.MessageResult{Queued: 1})
	v.show(textOf("n7", " in Lisbon", len("I found 3 hotels")))
	v.show(nodeEvent(reply("n7", "I found 3 hotels in Lisbon")))
	require.Equal(t, "agent> I found 3 hotels\n  (queued: the agent answers it after the current reply)\n"+
		"agent> ... in Lisbon\n", out.String())
}

func TestCheckChatTrace(t *testing.T) {
	task := func(id, text, by string, parents ...string) signals.Node {
		key := "message"
		if id == "n1" {
			key = "task"
		}
		args, _ := json.Marshal(map[string]string{key: text, "by": by})
		return signals.Node{ID: id, Kind: signals.KindTask, Status: signals.StatusCompleted, Args: args, Parents: parents}
	}
	output := func(id string) signals.Node { return signals.Node{ID: id, Kind: signals.KindOutput} }
	l := demoChatLines
	for _, tt := range []struct {
		name    string
		nodes   []signals.Node
		wantErr string
	}{
		{name: "each message by its author, the queued one after the answer before it",
			nodes: []signals.Node{task("n1", l[0], "ana"), output("n3"), task("n4", l[1], "ana", "n3"), output("n8"), task("n9", l[2], "ana", "n8"),
				{ID: "n12", Kind: signals.KindTask, Status: signals.StatusPending}}},
		{name: "another author", wantErr: `message n4 is by "", not ana`,
			nodes: []signals.Node{task("n1", l[0], "ana"), output("n3"), task("n4", l[1], "", "n3")}},
		{name: "the queued message joined before the answer", wantErr: "the queued message n9 is not after the answer",
			nodes: []signals.Node{task("n1", l[0], "ana"), output("n3"), task("n4", l[1], "ana", "n3"), task("n9", l[2], "ana", "n6"), output("n8")}},
		{name: "a message missing", wantErr: "the trace's messages are",
			nodes: []signals.Node{task("n1", l[0], "ana"), output("n3"), task("n4", l[1], "ana", "n3")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := checkChatTrace(&out, signals.Trace{Nodes: tt.nodes}, "ana")
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Contains(t, out.String(), "  n9  by ana: "+l[2])
		})
	}
}

func phaseEvent(p signals.Phase) feed.Event { return feed.Event{Type: feed.TypePhase, Phase: p} }
