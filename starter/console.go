package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/console"
)

// consoleTokenEnv is the environment variable --token defaults to, so the
// token stays out of the process list and shell history.
const consoleTokenEnv = "UNSTUCK_CONSOLE_TOKEN"

// consolePeopleEnv names the people's tokens file --people defaults to.
const consolePeopleEnv = "UNSTUCK_CONSOLE_PEOPLE"

// consoleSigningKeyEnv names the console's private key file
// --signing-key defaults to.
const consoleSigningKeyEnv = "UNSTUCK_CONSOLE_SIGNING_KEY"

func newConsoleCmd(c *cli) *cobra.Command {
	var listen, token, peopleFile, identityHeader, signingKey string
	var allowHosts []string
	var maxStreams, maxStreamsPerRun int
	cmd := &cobra.Command{
		Use:   "console",
		Short: "Serve a web console to watch and steer runs (runs, trace graph, approvals, edits, handoffs, inbox)",
		Long: `Serve the unstuck console: a small web app over the Temporal client.

  /               the runs, filtered by agent and phase (the AgentName and
                  AgentPhase search attributes), refreshed every 2s
  /runs/ID        a run: phase (and the outage it waits out), step,
                  breakers, loops and escalations, its trace as a graph
                  (invalidated nodes dashed, loops marked),
                  the calls waiting for approval (approve, modify, reject),
                  edit of a node, and handoff
  /inbox          the runs waiting for a person, with the handoff context
                  (from whom, why, the summary, the suggested next action,
                  the conversation) and a reply box

Every action is the same update as the CLI's (approve, edit, handoff,
reply), and the page shows the run's answer or its refusal verbatim. A
worker must be polling the task queue for runs to answer.

The console listens on loopback (127.0.0.1:8234) by default. To listen
elsewhere it needs a token (--token, or the environment variable
UNSTUCK_CONSOLE_TOKEN): every request must then carry it as the header
"Authorization: Bearer TOKEN", or open the console once as
http://HOST:PORT/?token=TOKEN, which keeps it in a cookie. A non-loopback
--listen without a token is refused.

Without a token the console answers only requests whose Host is a loopback
address (127.0.0.1, localhost, [::1]), so a web page whose name is pointed
at 127.0.0.1 (DNS rebinding) cannot drive it.

Behind a reverse proxy that authenticates (and terminates TLS), keep the
console on loopback and proxy to it; the proxy passes requests through
unchanged (no path prefix: the console's links start at /). A proxy that
passes the public Host on (Caddy, nginx with proxy_set_header Host $host)
needs that name allowed: --allow-host console.example.org.

A chat page follows its run live over an event stream, which reads the run
4 times a second. The console serves at most --max-streams of them at once,
and at most --max-streams-per-run of one run; a stream over either is
refused (HTTP 503 or 429, with Retry-After) and the page tries again.
Ctrl-C ends the streams at once; other requests in flight get a few seconds
to finish.`,
		Example: `  # on your machine: open http://127.0.0.1:8234
  unstuck console

  # on a shared host: a token, read from the environment
  UNSTUCK_CONSOLE_TOKEN=$(openssl rand -hex 16) unstuck console --listen 0.0.0.0:8234

  # each person with a token of their own (a line "NAME TOKEN" each)
  unstuck console --listen 0.0.0.0:8234 --people /etc/unstuck/console-people

  # behind oauth2-proxy, which names the person it authenticated
  unstuck console --identity-header X-Forwarded-User

  # behind a reverse proxy (nginx: location / { proxy_pass http://127.0.0.1:8234; })
  unstuck console --listen 127.0.0.1:8234 --address temporal.internal:7233 --namespace prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("token") {
				token = os.Getenv(consoleTokenEnv)
			}
			if !cmd.Flags().Changed("people") {
				peopleFile = os.Getenv(consolePeopleEnv)
			}
			opts := console.Options{Namespace: c.namespace, Token: token, IdentityHeader: identityHeader, AllowedHosts: allowHosts,
				MaxStreams: maxStreams, MaxStreamsPerRun: maxStreamsPerRun}
			if peopleFile != "" {
				people, err := readConsolePeople(peopleFile)
				if err != nil {
					return usageErrorf("--people %s: %v", peopleFile, err)
				}
				opts.People = people
			}
			if !cmd.Flags().Changed("signing-key") {
				signingKey = os.Getenv(consoleSigningKeyEnv)
			}
			if signingKey != "" {
				key, err := readApproverKey(signingKey)
				if err != nil {
					return usageErrorf("--signing-key: %v", err)
				}
				opts.SigningKey = key
			}
			// Refuse a bad --listen before anything is dialled.
			if err := console.CheckListen(listen, opts); err != nil {
				return usageErrorf("%v", err)
			}
			if maxStreams < 1 || maxStreamsPerRun < 1 {
				return usageErrorf("--max-streams and --max-streams-per-run must be at least 1, got %d and %d", maxStreams, maxStreamsPerRun)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return c.serveConsole(ctx, cmd, opts, listen)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", console.DefaultListen, "host:port to serve on (not loopback: needs a token)")
	cmd.Flags().StringVar(&token, "token", "", "token every request must carry (env "+consoleTokenEnv+")")
	cmd.Flags().StringVar(&peopleFile, "people", "", "a file of people's own tokens, a line `NAME TOKEN` each: the token says who acts (env "+consolePeopleEnv+")")
	cmd.Flags().StringVar(&signingKey, "signing-key", "", "the console's private key (people.keys.console): it signs approvals for the person it knows (env "+consoleSigningKeyEnv+")")
	cmd.Flags().StringVar(&identityHeader, "identity-header", "", "trust this header of the reverse proxy in front (X-Forwarded-User) to say who acts; loopback only")
	cmd.Flags().StringSliceVar(&allowHosts, "allow-host", nil, "a Host name served without a token besides loopback ones (a reverse proxy's); repeatable")
	cmd.Flags().IntVar(&maxStreams, "max-streams", console.DefaultMaxStreams, "the most live event streams (chat pages, GET /runs/ID/events) served at once")
	cmd.Flags().IntVar(&maxStreamsPerRun, "max-streams-per-run", console.DefaultMaxStreamsPerRun, "the most live event streams of one run served at once")
	return cmd
}

func (c *cli) serveConsole(ctx context.Context, cmd *cobra.Command, opts console.Options, listen string) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	h, err := console.New(tc, opts)
	if err != nil {
		return err
	}
	ln, err := console.Listen(listen, opts)
	if err != nil {
		return err
	}
	// The address as given reads better than the listener's ("[::]:8234"
	// for 0.0.0.0:8234); a port chosen by the system (":0") needs the
	// listener's.
	addr := listen
	if strings.HasSuffix(listen, ":0") {
		addr = ln.Addr().String()
	}
	fmt.Fprintf(cmd.OutOrStdout(), "unstuck console: http://%s (Temporal at %s, namespace %s)\n", addr, c.address, c.namespace)
	switch {
	case opts.IdentityHeader != "":
		fmt.Fprintf(cmd.OutOrStdout(), "  who acts is the header %s the reverse proxy in front sets\n", opts.IdentityHeader)
	case len(opts.People) > 0:
		fmt.Fprintf(cmd.OutOrStdout(), "  %d people, each with a token of their own: open http://%s/?token=... once, or send Authorization: Bearer ...\n", len(opts.People), addr)
	case opts.Token != "":
		fmt.Fprintf(cmd.OutOrStdout(), "  a token is required: open http://%s/?token=... once, or send Authorization: Bearer ...\n", addr)
	}
	fmt.Fprintln(cmd.OutOrStdout(), "  Ctrl-C stops it")
	return console.ServeListener(ctx, ln, h)
}
