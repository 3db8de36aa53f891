package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	// Ctrl-C cancels the context, so `run --wait` stops waiting (the run
	// itself keeps going on the server) instead of being killed mid-print.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr, dialTemporal)
	stop()
	os.Exit(code)
}
