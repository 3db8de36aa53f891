package telemetry

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// The standard variables that turn trace export on; the exporter itself
// reads them (and the other OTEL_EXPORTER_OTLP_* ones) as the OpenTelemetry
// specification says.
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// TracingWanted says whether the environment names an OTLP endpoint.
func TracingWanted() bool {
	return os.Getenv(envEndpoint) != "" || os.Getenv(envTracesEndpoint) != ""
}

// StartTracing installs the global TracerProvider: spans are batched to the
// OTLP/gRPC endpoint of the environment when one is named, otherwise the
// provider stays OpenTelemetry's no-op and tracing costs nothing. The
// returned shutdown flushes what is still batched.
func StartTracing(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	// W3C trace context, so a trace crosses into tools and other services.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !TracingWanted() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracegrpc.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter (%s / %s): %w", envEndpoint, envTracesEndpoint, err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(service)))
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

// WithTracing adds the Temporal SDK's OpenTelemetry tracing interceptor to
// client options. On a worker's client it traces workflows and activities
// too (the activity span is the parent of the model and tool spans); on the
// CLI's it carries the trace context into the runs it starts. It uses the
// global TracerProvider, so it is a no-op unless StartTracing installed one.
func WithTracing(opts client.Options) (client.Options, error) {
	tracing, err := TracingInterceptor()
	if err != nil {
		return opts, err
	}
	opts.Interceptors = append(opts.Interceptors, interceptor.ClientInterceptor(tracing))
	return opts, nil
}

// TracingInterceptor is the interceptor WithTracing adds: a replayer takes
// it too, so a replay runs the workflow code as the worker does.
func TracingInterceptor() (interceptor.Interceptor, error) {
	tracing, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{})
	if err != nil {
		return nil, fmt.Errorf("tracing interceptor: %w", err)
	}
	return tracing, nil
}
