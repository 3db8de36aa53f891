package activities

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/temporal"
)

// Spans of the model and tool requests, with the OpenTelemetry GenAI
// semantic-convention attributes. They start from the activity's context,
// so they are children of the activity span the Temporal tracing
// interceptor opens. The gen_ai keys come from semconv v1.41.0: later
// semconv packages of the otel module no longer carry them.

// tracerScope names the instrumentation scope of these spans.
const tracerScope = "github.com/unstuck-dev/unstuck/activities"

// ToolKindKey is where a tool lives: "http" or "builtin" (the worker's
// config), or "unknown" for a tool the config does not hold.
const ToolKindKey = attribute.Key("unstuck.tool.kind")

// tracerOf is the activity set's tracer: the global provider's unless a
// test gave one.
func (a *Activities) tracerOf() trace.Tracer {
	if a.tracer != nil {
		return a.tracer
	}
	return otel.Tracer(tracerScope)
}

// startChatSpan opens "chat {model}" around one chat-completions request.
func (a *Activities) startChatSpan(ctx context.Context, model string) (context.Context, trace.Span) {
	return a.tracerOf().Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameOpenAI,
		// The older name of the provider attribute, which many backends
		// still group GenAI spans by.
		attribute.String("gen_ai.system", "openai"),
		semconv.GenAIRequestModel(model),
	))
}

// endChatSpan records the reply (the provider's response id and model,
// tokens, finish reason) or the failure, and ends the span. The response
// id and model are found here only: the run's history does not record
// them (ModelReply).
func endChatSpan(span trace.Span, reply *ModelReply, err error) {
	if reply != nil {
		span.SetAttributes(
			semconv.GenAIResponseID(reply.ResponseID),
			semconv.GenAIResponseModel(reply.Model),
			semconv.GenAIUsageInputTokens(reply.InputTokens),
			semconv.GenAIUsageOutputTokens(reply.OutputTokens),
			semconv.GenAIResponseFinishReasons(reply.FinishReason),
		)
	}
	endSpan(span, err)
}

// startToolSpan opens "execute_tool {name}" around one tool call.
func (a *Activities) startToolSpan(ctx context.Context, r ToolRequest) (context.Context, trace.Span) {
	kind := "unknown"
	if t, ok := a.config.Tool(r.Tool.Name); ok {
		kind = "builtin"
		if t.HTTP != nil {
			kind = "http"
		}
	}
	if r.Tool.MCP != nil {
		kind = "mcp"
	}
	return a.tracerOf().Start(ctx, "execute_tool "+r.Tool.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(r.Tool.Name),
		semconv.GenAIToolCallID(r.CallID),
		// The model calls it as a function; where it runs is the kind.
		semconv.GenAIToolTypeKey.String("function"),
		ToolKindKey.String(kind),
	))
}

// endSpan records a failure, with its error class as error.type, and
// ends the span.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorClass(err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// errorClass is a failure's class: its application error type
// (transient, invalid_args, ModelUnavailable, ...), stalled for a
// streamed reply cut for silence.
func errorClass(err error) string {
	var app *temporal.ApplicationError
	switch {
	case !errors.As(err, &app) || app.Type() == "":
		return "error"
	case app.Type() == ModelStalledError:
		return StalledClass
	}
	return app.Type()
}
