package main

import (
	"context"
	"fmt"
	"io"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/console"
)

// startDemoConsole serves the console (`unstuck console`) on loopback
// beside the demo, over the demo's client, so the demo runs can be watched
// and steered in a browser as well as in the Web UI. stop shuts it down.
func startDemoConsole(ctx context.Context, out io.Writer, o demoOptions, c client.Client) (stop func(), err error) {
	h, err := console.New(c, console.Options{Namespace: app.DefaultNamespace})
	if err != nil {
		return nil, err
	}
	ln, err := console.Listen(o.consoleAddress(), console.Options{})
	if err != nil {
		return nil, fmt.Errorf("the demo's console: %w (pass --console-port)", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := console.ServeListener(ctx, ln, h); err != nil {
			fmt.Fprintf(out, "» console stopped: %v\n", err)
		}
	}()
	fmt.Fprintf(out, "» console on http://%s (runs, trace graphs, approvals, edits, handoffs, the human inbox)\n", o.consoleAddress())
	return func() { cancel(); <-done }, nil
}

// consoleAddress is where the demo's console listens.
func (o demoOptions) consoleAddress() string {
	return fmt.Sprintf("127.0.0.1:%d", o.consolePort)
}

// runLinks are where to look at a demo run: its page in the Temporal Web
// UI and in the console.
func (o demoOptions) runLinks(id string) string {
	return fmt.Sprintf("Web UI:  http://127.0.0.1:%d/namespaces/%s/workflows/%s\nConsole: http://%s/runs/%s",
		o.uiPort, app.DefaultNamespace, id, o.consoleAddress(), id)
}
