package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/unstuck-dev/unstuck/internal/telemetry"
)

func main() {
	// Ctrl-C cancels the context, so `run --wait` stops waiting (the run
	// itself keeps going on the server) instead of being killed mid-print.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	// With OTEL_EXPORTER_OTLP_ENDPOINT set, the spans of the runs this
	// command starts are exported, and flushed before it exits.
	stopTracing, err := telemetry.StartTracing(ctx, "unstuck")
	if err != nil {
		fmt.Fprintln(os.Stderr, "unstuck:", err)
		os.Exit(1)
	}
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr, dialTemporal)
	_ = stopTracing(context.Background())
	stop()
	os.Exit(code)
}
