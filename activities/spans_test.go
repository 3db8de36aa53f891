package activities

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// The model and tool spans, recorded in memory, under the activity span of
// the Temporal SDK's tracing interceptor as a worker opens it.

// traced gives acts a tracer whose spans the returned recorder keeps, and
// env the SDK's tracing interceptor on the same provider.
func traced(t *testing.T, acts *Activities, env *testsuite.TestActivityEnvironment) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	acts.tracer = tp.Tracer(tracerScope)
	tracing, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: tp.Tracer("temporal")})
	require.NoError(t, err)
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{tracing}})
	return rec
}

// spanNamed is the one ended span of that name, and its parent's name.
func spanNamed(t *testing.T, rec *tracetest.SpanRecorder, name string) (sdktrace.ReadOnlySpan, string) {
	t.Helper()
	var found sdktrace.ReadOnlySpan
	byID := map[string]string{}
	for _, s := range rec.Ended() {
		byID[s.SpanContext().SpanID().String()] = s.Name()
		if s.Name() == name {
			require.Nil(t, found, "two spans named %s", name)
			found = s
		}
	}
	require.NotNil(t, found, "no span named %s", name)
	return found, byID[found.Parent().SpanID().String()]
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestCallModelSpanHasTheGenAIAttributes(t *testing.T) {
	turn := scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "search_flights", Args: `{"from":"NYC"}`})
	f := newModelFixture(t, map[string]scriptedmodel.Script{"m": func(openai.ChatCompletionRequest) scriptedmodel.Turn { return turn }})
	rec := traced(t, f.acts, f.env)
	f.expectQuery(travelConversation, 1)

	reply, err := f.call(ModelRequest{Agent: f.agent(f.model("m"))})
	require.NoError(t, err)
	require.Positive(t, reply.InputTokens)
	require.Positive(t, reply.OutputTokens)

	span, parent := spanNamed(t, rec, "chat m")
	require.Equal(t, "RunActivity:CallModel", parent, "a child of the interceptor's activity span")
	a := attrs(span)
	require.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
	require.Equal(t, "openai", a["gen_ai.provider.name"].AsString())
	require.Equal(t, "openai", a["gen_ai.system"].AsString())
	require.Equal(t, "m", a["gen_ai.request.model"].AsString())
	// The provider's response id and model are the span's only: the
	// recorded reply leaves them out.
	require.Equal(t, "chatcmpl-scripted-1", a["gen_ai.response.id"].AsString())
	require.Equal(t, "m", a["gen_ai.response.model"].AsString())
	require.Empty(t, reply.Model)
	require.EqualValues(t, reply.InputTokens, a["gen_ai.usage.input_tokens"].AsInt64())
	require.EqualValues(t, reply.OutputTokens, a["gen_ai.usage.output_tokens"].AsInt64())
	require.Equal(t, []string{"tool_calls"}, a["gen_ai.response.finish_reasons"].AsStringSlice())
	require.Equal(t, codes.Unset, span.Status().Code)
}

func TestCallModelSpanRecordsTheFailure(t *testing.T) {
	f := newModelFixture(t, map[string]scriptedmodel.Script{"travel": travelScript()})
	rec := traced(t, f.acts, f.env)
	f.expectQuery(travelConversation, 1)
	f.srv.FailNextTurn(1, scriptedmodel.Turn{Status: 401, Message: "Incorrect API key"})

	_, err := f.call(ModelRequest{Agent: f.agent(f.model("travel"))})
	require.Error(t, err)
	span, _ := spanNamed(t, rec, "chat travel")
	require.Equal(t, codes.Error, span.Status().Code)
	require.Contains(t, span.Status().Description, "HTTP 401")
	require.Equal(t, ModelRejectedError, attrs(span)["error.type"].AsString())
}

func TestRunToolSpanNamesTheToolItsCallAndKind(t *testing.T) {
	acts := newTestActivities()
	acts.config.Tools = []config.Tool{builtinTool("echo", "echo"), builtinTool("broken", "activities_test_plain_error")}
	env := newActivityEnv(t, acts)
	rec := traced(t, acts, env)

	_, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n3", Tool: ToolRef{Name: "echo"}, Args: json.RawMessage(`{"a":1}`)})
	require.NoError(t, err)
	span, parent := spanNamed(t, rec, "execute_tool echo")
	require.Equal(t, "RunActivity:RunTool", parent)
	a := attrs(span)
	require.Equal(t, "execute_tool", a["gen_ai.operation.name"].AsString())
	require.Equal(t, "echo", a["gen_ai.tool.name"].AsString())
	require.Equal(t, "n3", a["gen_ai.tool.call.id"].AsString())
	require.Equal(t, "builtin", a[ToolKindKey].AsString())
	require.Equal(t, codes.Unset, span.Status().Code)

	_, err = env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n4", Tool: ToolRef{Name: "broken"}, Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	span, _ = spanNamed(t, rec, "execute_tool broken")
	require.Equal(t, codes.Error, span.Status().Code)
	require.Equal(t, "transient", attrs(span)["error.type"].AsString(), "the error class")
}

func TestRunToolSpanOfAnHTTPTool(t *testing.T) {
	acts := newTestActivities()
	acts.config.Tools = []config.Tool{{Name: "book", HTTP: &config.HTTPTool{Method: "POST", URL: "http://127.0.0.1:9/book"}}}
	env := newActivityEnv(t, acts)
	rec := traced(t, acts, env)
	_, _ = env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n1", Tool: ToolRef{Name: "book"}, Args: json.RawMessage(`{}`)})
	span, _ := spanNamed(t, rec, "execute_tool book")
	require.Equal(t, "http", attrs(span)[ToolKindKey].AsString())
}
