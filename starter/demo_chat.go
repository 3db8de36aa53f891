package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// `unstuck demo chat`: a conversation with the demo's hotel concierge on
// the scripted model (a test double). Without --once the person types,
// in the same chat as `unstuck chat`; with --once the demo types a short
// exchange itself and shows it as that chat would, a message sent while
// the agent works included (double_text: enqueue).

const (
	demoChatAgent = "concierge"
	// demoChatWait bounds each wait of the scripted exchange for the run
	// to get somewhere.
	demoChatWait = 2 * time.Minute
)

// demoChatLines are what the scripted exchange says, in order. The last
// is sent while the agent writes the answer to the one before.
var demoChatLines = []string{"Hello!", "I need a hotel in Lisbon for Friday", "Thanks, that's perfect!"}

func newDemoChatCmd(o *demoOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Chat with the demo's hotel concierge, a conversation agent, in the terminal",
		Long: `demo chat starts what "unstuck demo" starts (a Temporal dev server, the
scripted model server, a TEST DOUBLE, and the worker with the demo config),
then opens a chat with the conversation agent "` + demoChatAgent + `", as "unstuck chat ` + demoChatAgent + `"
does: you type, it answers, and the run waits (phase awaiting_user) for your
next message. It always runs on the scripted model, even when OPENAI_BASE_URL
is set: the agent names its own endpoint in the config.

The scripted concierge answers what you last said, from the whole
conversation: a greeting with what it can do; "a hotel in Lisbon" with a
call of its find_hotels tool (made-up hotels), then a reply naming them;
thanks with a closing line; anything else by quoting it. It matches words,
it does not understand them: it is a test double, not a model.

A message sent while the agent works waits its turn (double_text: enqueue)
and is answered after the reply being written. Ctrl-D leaves the chat, not
the run; Ctrl-C stops everything.

With --once the demo types this exchange itself, then stops:
  you> ` + demoChatLines[0] + `
  you> ` + demoChatLines[1] + `
  you> ` + demoChatLines[2] + `   (sent while the agent answers the hotel request: queued)
and prints the run's trace, whose task nodes hold each message with its
author (--by).`,
		Example: `  make demo-chat
  bin/unstuck demo chat --temporal bin/temporal --worker bin/unstuck-worker --by ana
  bin/unstuck demo chat --once --port 7300 --ui-port 8300 --data /tmp/demo   # the scripted exchange, then exit`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := *o
			d.in = cmd.InOrStdin()
			return runDemo(cmd.Context(), cmd.OutOrStdout(), d, chatScenario(d.once))
		},
	}
	cmd.Flags().StringVar(&o.by, "by", "guest", "who you are in the chat (kept in the trace with each message)")
	return cmd
}

// chatScenario is the chat demo. With once, the concierge's answer to a
// search's result is held until the demo has sent its next message, so
// that message reaches the run while it works, every time.
func chatScenario(once bool) demoScenario {
	hold := newReplyHold(once)
	concierge := scriptedmodel.Scenarios()[scriptedmodel.ConciergeDemo]
	return demoScenario{
		scripted: true,
		scripts:  map[string]scriptedmodel.Script{scriptedmodel.ConciergeDemo: hold.script(concierge)},
		run: func(ctx context.Context, out io.Writer, o demoOptions, c client.Client, _ *child.Process, address string) error {
			id := "demo-chat-" + time.Now().UTC().Format("20060102-150405")
			if !o.once {
				return chatInTerminal(ctx, out, o, c, id, address)
			}
			defer hold.let()
			return scriptedChat(ctx, out, o, c, id, hold)
		},
	}
}

// chatInTerminal hands the terminal to the chat of `unstuck chat`.
func chatInTerminal(ctx context.Context, out io.Writer, o demoOptions, c client.Client, id, address string) error {
	fmt.Fprintf(out, "\n%s\n", o.runLinks(id))
	fmt.Fprintf(out, "Try:     say hello; ask for a hotel in a city; send a second message while the answer is written (it waits its turn); say thanks.\n")
	fmt.Fprintf(out, "         Elsewhere: TEMPORAL_ADDRESS=%s bin/unstuck trace %s\n\n", address, id)
	err := chatWith(ctx, c, o.in, out, out, chatOptions{id: id, taskQueue: workflows.TaskQueue, by: o.by}, demoChatAgent)
	if ctx.Err() != nil {
		return nil // Ctrl-C: runDemo stops everything
	}
	return err
}

// scriptedChat types demoChatLines into the chat of `unstuck chat`
// (its view, its sending), the last while the agent answers the one
// before, then checks and prints the run's trace.
func scriptedChat(ctx context.Context, out io.Writer, o demoOptions, c client.Client, id string, hold *replyHold) error {
	fmt.Fprintf(out, "» chatting with %q as %s (workflow id %s); the demo types the messages:\n\n", demoChatAgent, o.by, id)
	s := &chatSession{tc: c, out: out, by: o.by, id: id, view: newChatView(out)}
	failed := func(step string, err error) error {
		fmt.Fprintf(out, "\nThe chat demo stopped at %s: %v\n%s\n", step, err, o.runLinks(id))
		return fmt.Errorf("%s: %w", step, err)
	}

	first := demoChatLines[0]
	s.view.echo(first)
	if err := s.start(ctx, chatOptions{taskQueue: workflows.TaskQueue, by: o.by}, demoChatAgent, first); err != nil {
		return failed("the first message", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x := exchange{s: s}
	x.events, x.followed = s.follow(ctx)

	if err := x.until(ctx, awaitingUser); err != nil {
		return failed("the answer to "+quoteLine(first), err)
	}
	s.view.echo(demoChatLines[1])
	s.typed(ctx, demoChatLines[1])
	if err := x.until(ctx, settledCall("find_hotels")); err != nil {
		return failed("the hotel search", err)
	}
	select {
	case <-hold.reached:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(demoChatWait):
		return failed("the hotel search", fmt.Errorf("the model was not asked to answer the search's result within %s", demoChatWait))
	}
	s.view.echo(demoChatLines[2])
	s.typed(ctx, demoChatLines[2])
	fmt.Fprintln(out, "  (double_text: enqueue: it waits for the reply being written, then is answered)")
	hold.let()
	if err := x.until(ctx, awaitingUser); err != nil {
		return failed("the answer to "+quoteLine(demoChatLines[2]), err)
	}
	s.view.echo("(the demo types no more: the run waits for the next message until its idle_timeout)")

	tr, err := queryTrace(ctx, c, id, "")
	if err != nil {
		return failed("the trace", err)
	}
	fmt.Fprintln(out, "\nTrace:")
	if err := renderTable(out, tr); err != nil {
		return err
	}
	if err := checkChatTrace(out, tr, o.by); err != nil {
		return failed("the trace", err)
	}
	fmt.Fprintf(out, "\n%s\n", o.runLinks(id))
	fmt.Fprintf(out, "Try:     make demo-chat   (the same chat, and you type)\n")
	return nil
}

// exchange follows a scripted chat's run, showing each event in its view.
type exchange struct {
	s        *chatSession
	events   <-chan feed.Event
	followed <-chan error
}

// until shows the run's events until one is as done says.
func (x exchange) until(ctx context.Context, done func(feed.Event) bool) error {
	deadline := time.After(demoChatWait)
	for {
		select {
		case e := <-x.events:
			x.s.view.show(e)
			if e.Type == feed.TypeEnd {
				return errors.New("the run ended")
			}
			if done(e) {
				return nil
			}
		case err := <-x.followed:
			return fmt.Errorf("follow %s: %w", x.s.id, err)
		case <-deadline:
			return fmt.Errorf("nothing came of it within %s", demoChatWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func awaitingUser(e feed.Event) bool {
	return e.Type == feed.TypePhase && e.Phase == signals.PhaseAwaitingUser
}

func settledCall(tool string) func(feed.Event) bool {
	return func(e feed.Event) bool {
		return e.Type == feed.TypeNode && e.Node.Kind == signals.KindCall && e.Node.Tool == tool && e.Node.Status.Settled()
	}
}

// checkChatTrace checks that the run's task nodes hold the exchange's
// messages, in order, each by its author, the queued one taken after the
// answer to the one before, and prints them.
func checkChatTrace(out io.Writer, tr signals.Trace, by string) error {
	var said []string
	answered := map[string]int{} // output node id: its place in the trace
	fmt.Fprintf(out, "\nThe messages, as the trace keeps them (task nodes, with their author):\n")
	for i, n := range tr.Nodes {
		switch n.Kind {
		case signals.KindOutput:
			answered[n.ID] = i
		case signals.KindTask:
			var m struct{ Task, Message, By string }
			_ = json.Unmarshal(n.Args, &m)
			text := cmp.Or(m.Message, m.Task)
			if text == "" {
				continue // the wait for the next message
			}
			fmt.Fprintf(out, "  %s  by %s: %s\n", n.ID, orDash(m.By), text)
			if m.By != by {
				return fmt.Errorf("message %s is by %q, not %s", n.ID, m.By, by)
			}
			if len(said) == len(demoChatLines)-1 && (len(n.Parents) != 1 || answered[n.Parents[0]] == 0) {
				return fmt.Errorf("the queued message %s is not after the answer to the one before (parents %v)", n.ID, n.Parents)
			}
			said = append(said, text)
		}
	}
	if strings.Join(said, "\n") != strings.Join(demoChatLines, "\n") {
		return fmt.Errorf("the trace's messages are %q, not %q", said, demoChatLines)
	}
	return nil
}

func quoteLine(s string) string { return fmt.Sprintf("%q", s) }
