package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type problemCase struct {
	name   string
	yaml   string
	line   int
	path   string
	reason string
}

func runProblems(t *testing.T, cases []problemCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(tc.yaml)
			require.Nil(t, f)
			requireProblem(t, err, tc.line, tc.path, tc.reason)
		})
	}
}

func TestValidateModel(t *testing.T) {
	runProblems(t, []problemCase{
		{"base_url missing", y(
			"model: {name: m}",
			"agents: [{name: x}]"), 1, "model.base_url", "missing"},
		{"name missing", y(
			"model:",
			"  base_url: http://m/v1",
			"agents: [{name: x}]"), 1, "model.name", "missing"},
		{"an agent without a model needs the default", y(
			"agents:",
			"  - {name: x, model: {base_url: http://m/v1, name: m}}",
			"  - {name: y}"), 0, "model.base_url", "missing"},
		{"base_url not http", y(
			"model: {base_url: ftp://m/v1, name: m}",
			"agents: [{name: x}]"), 1, "model.base_url", `invalid URL "ftp://m/v1": want an absolute http:// or https:// URL`},
		{"base_url relative", y(
			"model: {base_url: /v1, name: m}",
			"agents: [{name: x}]"), 1, "model.base_url", "want an absolute"},
		{"base_url without host", y(
			"model: {base_url: 'http:///v1', name: m}",
			"agents: [{name: x}]"), 1, "model.base_url", "no host"},
		{"agent model base_url", y(
			"model: {base_url: http://m/v1, name: m}",
			"agents:",
			"  - name: x",
			"    model: {base_url: 'm:8080'}"), 4, "agents[0].model.base_url", "want an absolute"},
	})
}

func TestValidateModelOptional(t *testing.T) {
	_, err := parse(y(
		"agents:",
		"  - {name: x, model: {base_url: http://m/v1, name: m}}",
		"  - {name: h, kind: human}"))
	require.NoError(t, err, "every llm agent has its own model; human agents need none")
}

func TestValidateTools(t *testing.T) {
	long := strings.Repeat("a", 65)
	runProblems(t, []problemCase{
		{"name missing", withTool(
			"  - http: {url: http://t/a}"), 3, "tools[0].name", "missing"},
		{"name with a space", withTool(
			"  - name: book flight",
			"    http: {url: http://t/a}"), 3, "tools[0].name", `invalid tool name "book flight"`},
		{"name too long", withTool(
			"  - name: "+long,
			"    http: {url: http://t/a}"), 3, "tools[0].name", "1 to 64"},
		{"reserved final_output", withTool(
			"  - name: final_output",
			"    http: {url: http://t/a}"), 3, "tools[0].name", `"final_output" is reserved`},
		{"reserved handoff", withTool(
			"  - name: handoff",
			"    http: {url: http://t/a}"), 3, "tools[0].name", `"handoff" is reserved`},
		{"duplicate name", withTool(
			"  - {name: a, http: {url: http://t/a}}",
			"  - {name: a, http: {url: http://t/a}}"), 4, "tools[1].name", `duplicate tool name "a" (also tools[0])`},
		{"http and builtin", withTool(
			"  - name: a",
			"    builtin: echo",
			"    http: {url: http://t/a}"), 3, "tools[0]", "set one of http, builtin or mcp, not several"},
		{"neither http nor builtin", withTool(
			"  - name: a"), 3, "tools[0]", "missing http, builtin or mcp"},
		{"unknown builtin", withTool(
			"  - name: a",
			"    builtin: ech"), 4, "tools[0].builtin", `unknown builtin "ech"`},
		{"bad method", withTool(
			"  - name: a",
			"    http: {method: FETCH, url: http://t/a}"), 4, "tools[0].http.method", `invalid method "FETCH" (want one of GET, POST, PUT, PATCH, DELETE)`},
		{"unknown method", withTool(
			"  - name: a",
			"    http: {method: fetch, url: http://t/a}"), 4, "tools[0].http.method", `invalid method "FETCH"`},
		{"url missing", withTool(
			"  - name: a",
			"    http: {method: GET}"), 4, "tools[0].http.url", "missing"},
		{"url relative", withTool(
			"  - name: a",
			"    http:",
			"      url: /book"), 5, "tools[0].http.url", `invalid URL "/book"`},
		{"timeout zero", withTool(
			"  - name: a",
			"    http: {url: http://t/a, timeout: 0s}"), 4, "tools[0].http.timeout", "must be > 0"},
		{"timeout negative", withTool(
			"  - name: a",
			"    http: {url: http://t/a, timeout: -1s}"), 4, "tools[0].http.timeout", "must be > 0, got -1s"},
		{"bad effect", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    effect: delete"), 5, "tools[0].effect", `invalid effect "delete" (want one of read, idempotent, write)`},
		{"bad approval", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    approval: sometimes"), 5, "tools[0].approval", `invalid approval "sometimes" (want one of never, always)`},
		{"bad reexecute", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    reexecute: redo"), 5, "tools[0].reexecute", `invalid reexecute "redo" (want one of reuse, ask)`},
		{"backoff below 1", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry: {backoff: 0.5}"), 5, "tools[0].retry.backoff", "must be at least 1, got 0.5"},
		{"initial_interval zero", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry: {initial_interval: 0s}"), 5, "tools[0].retry.initial_interval", "must be > 0"},
		{"max_interval zero", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry:",
			"      max_interval: 0s"), 6, "tools[0].retry.max_interval", "must be > 0"},
		{"max_interval below initial", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry: {initial_interval: 10s, max_interval: 5s}"), 5, "tools[0].retry.max_interval", "5s is below initial_interval 10s"},
		{"max_attempts negative", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry: {max_attempts: -1}"), 5, "tools[0].retry.max_attempts", "must be at least 0"},
		{"fallback itself", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    fallback: a"), 5, "tools[0].fallback", "cannot be its own fallback"},
		{"fallback chain cycles", withTool(
			"  - {name: a, http: {url: http://t/a}, fallback: b}",
			"  - {name: b, http: {url: http://t/b}, fallback: c}",
			"  - {name: c, http: {url: http://t/c}, fallback: a}"), 3, "tools[0].fallback", "the fallback chain comes back to a: a -> b -> c -> a"},
		{"fallback unknown", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    fallback: b"), 5, "tools[0].fallback", `unknown tool "b" (known: a, other)`},
		{"provider with spaces", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    provider: my provider"), 5, "tools[0].provider", `invalid provider "my provider": use 1 to 64 letters, digits, _, -, . or /`},
		{"error class", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    errors:",
			"      - {status: 500, class: flaky}"), 6, "tools[0].errors[0].class", `invalid class "flaky" (want one of transient, invalid_args, persistent, fatal)`},
		{"error rule without match", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    errors:",
			"      - {status: 500, class: transient}",
			"      - {class: fatal}"), 7, "tools[0].errors[1]", "needs status or message"},
		{"error status out of range", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    errors: [{status: 600, class: fatal}]"), 5, "tools[0].errors[0].status", "600 is not an HTTP status (100..599)"},
		{"error message bad regexp", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    errors:",
			"      - message: '(?i)invalid ('",
			"        class: invalid_args"), 6, "tools[0].errors[0].message", "invalid regular expression: missing closing )"},
		{"parameters bad schema", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    parameters:",
			"      type: object",
			"      properties:",
			"        date: {type: strin}"), 8, "tools[0].parameters", `tool "a" parameters: invalid JSON Schema at /properties/date/type: value must be one of`},
		{"parameters bad keyword value", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    parameters:",
			"      type: object",
			"      required: date"), 7, "tools[0].parameters", `invalid JSON Schema at /required: got string, want array`},
		{"parameters not an object", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    parameters: {type: string}"), 5, "tools[0].parameters", `tool "a" parameters: the top-level "type" must be "object"`},
		{"parameters remote ref", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    parameters: {type: object, $ref: 'https://example.com/s.json'}"), 5, "tools[0].parameters", `cannot load "https://example.com/s.json"`},
	})
}

func TestValidateBuiltinWithoutRegistry(t *testing.T) {
	opts := testOpts()
	opts.KnownBuiltin = nil
	_, err := Parse("agents.yaml", []byte(withTool("  - name: a", "    builtin: echo")), opts)
	requireProblem(t, err, 4, "tools[0].builtin", `builtin "echo" is not available`)
}

func TestValidateAgents(t *testing.T) {
	runProblems(t, []problemCase{
		{"no agents", y(
			"model: {base_url: http://m/v1, name: m}"), 0, "agents", "no agents"},
		{"name missing", withAgent(
			"  - tools: [a]"), 6, "agents[0].name", "missing"},
		{"duplicate name", withAgent(
			"  - name: x",
			"  - name: x"), 7, "agents[1].name", `duplicate agent name "x" (also agents[0])`},
		{"reserved name human", withAgent(
			"  - name: human"), 6, "agents[0].name", `"human" is reserved`},
		{"bad kind", withAgent(
			"  - name: x",
			"    kind: robot"), 7, "agents[0].kind", `invalid kind "robot" (want one of llm, human)`},
		{"unknown tool", withAgent(
			"  - name: x",
			"    tools: [a, c]"), 7, "agents[0].tools[1]", `unknown tool "c" (known: a, b)`},
		{"tool listed twice", withAgent(
			"  - name: x",
			"    tools: [a, b, a]"), 7, "agents[0].tools[2]", `tool "a" is listed twice`},
		{"unknown handoff", withAgent(
			"  - name: x",
			"    handoffs: [y, human, '*', z]",
			"  - name: y"), 7, "agents[0].handoffs[3]", `unknown handoff target "z" (known: x, y; or "human", "*")`},
		{"bad output_schema", withAgent(
			"  - name: x",
			"    output_schema:",
			"      type: object",
			"      properties: {n: {minimum: x}}"), 9, "agents[0].output_schema", `agent "x" output_schema: invalid JSON Schema at /properties/n/minimum`},
		{"negative tier", withAgent(
			"  - name: x",
			"    tier: -1"), 7, "agents[0].tier", "must be at least 0"},
		{"negative max_concurrent", withAgent(
			"  - name: x",
			"    max_concurrent: -1"), 7, "agents[0].max_concurrent", "must be at least 0"},
		{"stream_calls on a human", withAgent(
			"  - name: x",
			"    kind: human",
			"    stream_calls: true"), 8, "agents[0].stream_calls", "applies to llm agents"},
		{"double_text without conversation", withAgent(
			"  - name: x",
			"    double_text: reject"), 7, "agents[0].double_text", "applies to agents with conversation"},
		{"unknown double_text", withAgent(
			"  - name: x",
			"    conversation: {idle_timeout: 1h}",
			"    double_text: later"), 8, "agents[0].double_text", `invalid double_text "later" (want one of enqueue, interrupt, reject, rollback)`},
		{"zero idle_timeout", withAgent(
			"  - name: x",
			"    conversation: {idle_timeout: 0s}"), 7, "agents[0].conversation.idle_timeout", "must be > 0"},
		{"conversation on a human", withAgent(
			"  - name: x",
			"    kind: human",
			"    conversation: {}"), 8, "agents[0].conversation", "applies to llm agents"},
	})
}

// TestUnknownToolMessage pins the message format docs/contract.md users see.
func TestUnknownToolMessage(t *testing.T) {
	_, err := parse(y(
		"model:",
		"  base_url: http://m/v1",
		"  name: m",
		"tools:",
		"  - name: book_flight",
		"    http: {url: http://t/book}",
		"  - name: search_flights",
		"    http: {url: http://t/search}",
		"agents:",
		"  - name: travel",
		"    instructions: Book.",
		"    tools:",
		"      - book_flight",
		"      - bok_flight"))
	require.EqualError(t, err, `agents.yaml:14: agents[0].tools[1]: unknown tool "bok_flight" (known: book_flight, search_flights)`)
}

func TestValidatePolicies(t *testing.T) {
	pol := func(lines ...string) string {
		return withAgent(append([]string{"  - name: x", "    policies:"}, lines...)...)
	}
	runProblems(t, []problemCase{
		{"max_steps zero", pol("      max_steps: 0"), 8, "agents[0].policies.max_steps", "must be at least 1, got 0"},
		{"window one", pol("      loop: {window: 1}"), 8, "agents[0].policies.loop.window", "must be at least 2"},
		{"window too large", pol("      loop: {window: 5000}"), 8, "agents[0].policies.loop.window", "must be at most 4096"},
		{"repeats one", pol("      loop: {repeats: 1}"), 8, "agents[0].policies.loop.repeats", "must be at least 2"},
		{"window below repeats", pol("      loop: {window: 3, repeats: 4}"), 8, "agents[0].policies.loop.window", "window 3 is smaller than repeats 4"},
		{"time window of one visit", pol("      loop: {time_window: {visits: 1, within: 30s}}"), 8, "agents[0].policies.loop.time_window.visits", "must be between 2 and 1024 (one visit is not a loop; the run keeps that many visit times), got 1"},
		{"time window of too many visits", pol("      loop: {time_window: {visits: 5000, within: 30s}}"), 8, "agents[0].policies.loop.time_window.visits", "must be between 2 and 1024"},
		{"time window without within", pol("      loop: {time_window: {visits: 5}}"), 8, "agents[0].policies.loop.time_window.within", "must be between 1s and 24h0m0s (workflow time moves once per workflow task), got 0s"},
		{"time window too short", pol("      loop: {time_window: {visits: 5, within: 10ms}}"), 8, "agents[0].policies.loop.time_window.within", "got 10ms"},
		{"time window too long", pol("      loop: {time_window: {visits: 5, within: 48h}}"), 8, "agents[0].policies.loop.time_window.within", "got 48h0m0s"},
		{"time window not a duration", pol("      loop: {time_window: {visits: 5, within: soon}}"), 8, "agents[0].policies.loop.time_window.within", `invalid duration "soon"`},
		{"failures zero", pol("      breaker: {failures: 0}"), 8, "agents[0].policies.breaker.failures", "must be at least 1"},
		{"cooldown zero", pol("      breaker: {cooldown: 0s}"), 8, "agents[0].policies.breaker.cooldown", "must be > 0"},
		{"unknown rung", pol("      escalation: [retry, pray, stop]"), 8, "agents[0].policies.escalation[1]", `invalid escalation rung "pray" (want one of retry, substitute, explore, rollback, handoff, human, stop)`},
		{"duplicate rung", pol("      escalation: [retry, stop, retry]"), 8, "agents[0].policies.escalation[2]", `rung "retry" is listed twice`},
		{"no rungs", pol("      escalation: []"), 8, "agents[0].policies.escalation", "no rungs"},
		{"human_timeout negative", pol("      human_timeout: -1h"), 8, "agents[0].policies.human_timeout", "must be > 0"},
		{"repair negative", pol("      repair: {max_attempts: -1}"), 8, "agents[0].policies.repair.max_attempts", "must be at least 0"},
	})
}

func TestValidateGraph(t *testing.T) {
	runProblems(t, []problemCase{
		{"start missing", withGraph(
			"      nodes: {E: {end: true}}"), 8, "agents[0].graph.start", "missing"},
		{"start unknown", withGraph(
			"      start: S",
			"      nodes: {E: {end: true}}"), 9, "agents[0].graph.start", `unknown node "S" (nodes: E)`},
		{"no nodes", withGraph(
			"      start: S"), 8, "agents[0].graph.nodes", "no nodes"},
		{"node of no kind", withGraph(
			"      start: E",
			"      nodes:",
			"        A: {output_path: †state.x}",
			"        E: {end: true}"), 11, "agents[0].graph.nodes.A", "exactly one of tool, llm, human or end; this one is none"},
		{"node of two kinds", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {llm: true, human: true}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A", "this one is llm and human"},
		{"node tool not the agent's", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {tool: b}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A.tool", `tool "b" is not one of the agent's tools (a)`},
		{"args bad reference", withGraph(
			"      start: A",
			"      nodes:",
			"        A:",
			"          tool: a",
			"          args: {q: \"†input.q\", d: \"†stat.d\"}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 13, "agents[0].graph.nodes.A.args.d", `invalid variable reference "†stat.d"`},
		{"nested args bad reference", withGraph(
			"      start: A",
			"      nodes:",
			"        A:",
			"          tool: a",
			"          args:",
			"            list: [\"†state.ok\", \"†state\"]",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 14, "agents[0].graph.nodes.A.args.list[1]", `invalid variable reference "†state"`},
		{"bad alternative reference", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {tool: a, args: {q: \"†state.q || input.q\"}}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A.args.q", `invalid variable reference`},
		{"output_path into input", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {tool: a, output_path: \"†input.q\"}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A.output_path", `invalid output path "†input.q": want a state path such as †state.result`},
		{"output_path without dagger", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {tool: a, output_path: state.q}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A.output_path", `invalid output path "state.q"`},
		{"args on an llm node", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {llm: true, args: {q: 1}}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A", "args and output_path apply to tool nodes only"},
		{"output on a tool node", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {tool: a, output: \"†state.x\"}",
			"        E: {end: true}",
			"      edges: [{from: A, to: E}]"), 11, "agents[0].graph.nodes.A.output", "output applies to end nodes only"},
		{"end output bad reference", withGraph(
			"      start: E",
			"      nodes:",
			"        E: {end: true, output: \"†result\"}"), 11, "agents[0].graph.nodes.E.output", `invalid variable reference "†result"`},
		{"edge from unknown", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E}",
			"        - {from: Z, to: A}"), 13, "agents[0].graph.edges[1].from", `unknown node "Z" (nodes: A, E)`},
		{"edge to unknown", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E}",
			"        - {from: A, to: Y}"), 13, "agents[0].graph.edges[1].to", `unknown node "Y"`},
		{"edge without to", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E}",
			"        - {from: A}"), 13, "agents[0].graph.edges[1].to", "missing"},
		{"edge from an end node", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E}",
			"        - {from: E, to: A}"), 13, "agents[0].graph.edges[1].from", `node "E" is an end node`},
		{"when syntax", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E, when: \"ok &&\"}"), 12, "agents[0].graph.edges[0].when", `invalid condition "ok &&"`},
		{"when not bool", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E, when: \"visits.A + 1\"}"), 12, "agents[0].graph.edges[0].when", "expected bool"},
		{"when unknown variable", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E, when: \"okay\"}"), 12, "agents[0].graph.edges[0].when", "unknown name okay"},
		{"when now() is not deterministic", withGraph(
			"      start: A",
			"      nodes: {A: {llm: true}, E: {end: true}}",
			"      edges:",
			"        - {from: A, to: E, when: \"now().Year() > 2000\"}"), 12, "agents[0].graph.edges[0].when", `invalid condition`},
		{"no end reachable", withGraph(
			"      start: A",
			"      nodes:",
			"        A: {llm: true}",
			"        B: {human: true}",
			"        E: {end: true}",
			"      edges:",
			"        - {from: A, to: B}",
			"        - {from: B, to: A}"), 8, "agents[0].graph", `no end node is reachable from start "A"`},
	})
}

func TestValidateGraphValid(t *testing.T) {
	f, err := parse(withGraph(
		"      start: A",
		"      nodes:",
		"        A: {tool: a, args: {q: \"†input.q || †state.q\", n: [1, {x: \"†state.x.y\"}], lit: plain}, output_path: \"†state.a\"}",
		"        W: {human: true}",
		"        E: {end: true, output: \"†state.a\"}",
		"      edges:",
		"        - {from: A, to: W, when: \"!ok && error != '' && visits.A < 3\"}",
		"        - {from: A, to: E, when: \"input.q == 'x' || state.done == true\"}",
		"        - {from: W, to: A}"))
	require.NoError(t, err)
	require.Equal(t, "†state.a", f.Agents[0].Graph.Nodes["A"].OutputPath)
}

// TestValidateAllProblems checks that problems are all reported at once,
// in file order, each on its own line of the error.
func TestValidateAllProblems(t *testing.T) {
	_, err := parse(y(
		"model: {base_url: http://m/v1}",
		"tools:",
		"  - {name: a, http: {url: http://t/a, method: FETCH}, effect: erase}",
		"agents:",
		"  - {name: x, tools: [a, zz], kind: bot}"))
	ps := Problems(err)
	require.Len(t, ps, 5, "%v", err)
	require.Equal(t, []string{"tools[0].http.method", "tools[0].effect", "model.name", "agents[0].kind", "agents[0].tools[1]"},
		[]string{ps[0].Path, ps[1].Path, ps[2].Path, ps[3].Path, ps[4].Path})
	require.Len(t, strings.Split(err.Error(), "\n"), 5)
}

// TestValidateGo covers Validate on a File built in Go: no file, no lines.
func TestValidateGo(t *testing.T) {
	f := &File{
		Model:  Model{BaseURL: "http://m/v1", Name: "m"},
		Tools:  []Tool{{Name: "a", Builtin: "echo"}},
		Agents: []Agent{{Name: "x", Tools: []string{"a"}}},
	}
	f.SetDefaults()
	require.NoError(t, f.Validate(testOpts()))

	f.Agents[0].Tools = append(f.Agents[0].Tools, "b")
	err := f.Validate(testOpts())
	require.EqualError(t, err, `agents[0].tools[1]: unknown tool "b" (known: a)`)
}

// A lower-case method is the same method: the runtime upper-cases it.
func TestLowerCaseMethodIsAccepted(t *testing.T) {
	f, err := parse(withTool("  - name: a", "    http: {method: get, url: http://t/a}"))
	require.NoError(t, err)
	require.Equal(t, "get", f.Tools[0].HTTP.Method)
}

// A model retry block keeps the defaults of the fields it leaves out, and
// a bad one is refused at load.
func TestModelRetryIsFilledAndChecked(t *testing.T) {
	f, err := parse(strings.Join([]string{
		"model: {base_url: http://m/v1, name: m, retry: {initial_interval: 2s}}",
		"tools: [{name: a, builtin: echo}]",
		"agents: [{name: x, tools: [a]}]",
	}, "\n"))
	require.NoError(t, err)
	require.Equal(t, 8, f.Model.Retry.MaxAttempts, "not Temporal's unlimited")
	require.Equal(t, 2.0, f.Model.Retry.Backoff)

	_, err = parse(strings.Join([]string{
		"model: {base_url: http://m/v1, name: m, retry: {backoff: 0.5, max_attempts: -3}, timeout: -5s}",
		"tools: [{name: a, builtin: echo}]",
		"agents: [{name: x, tools: [a]}]",
	}, "\n"))
	require.ErrorContains(t, err, "model.retry.backoff")
	require.ErrorContains(t, err, "model.retry.max_attempts")
	require.ErrorContains(t, err, "model.timeout")
}

// A model's breaker and fallback cooldown are read, an agent's own
// replacing the file's; bad ones are refused at load with the field named.
func TestModelBreakerAndFallbackCooldownAreReadAndChecked(t *testing.T) {
	f, err := parse(strings.Join([]string{
		"model: {base_url: http://m/v1, name: m, breaker: {failures: 2}, fallback_cooldown: 5m}",
		"tools: [{name: a, builtin: echo}]",
		"agents: [{name: x, tools: [a]}, {name: y, tools: [a], model: {breaker: {cooldown: 1m}, fallback_cooldown: 10s}}]",
	}, "\n"))
	require.NoError(t, err)
	x, y := f.agentModel(&f.Agents[0], noEnv), f.agentModel(&f.Agents[1], noEnv)
	require.Equal(t, BreakerPolicy{Failures: 2, Cooldown: DefaultCooldown}, x.ModelBreaker(), "the cooldown left out keeps its default")
	require.Equal(t, 5*time.Minute, x.OnFallbackFor())
	require.Equal(t, BreakerPolicy{Failures: DefaultFailures, Cooldown: Duration(time.Minute)}, y.ModelBreaker(), "the agent's block replaces the file's")
	require.Equal(t, 10*time.Second, y.OnFallbackFor())
	require.Equal(t, BreakerPolicy{Failures: DefaultFailures, Cooldown: DefaultCooldown}, Model{}.ModelBreaker())
	require.Equal(t, DefaultCooldown.D(), Model{}.OnFallbackFor())

	_, err = parse(strings.Join([]string{
		"model: {base_url: http://m/v1, name: m, breaker: {failures: -1, cooldown: -2s}, fallback_cooldown: -1m}",
		"tools: [{name: a, builtin: echo}]",
		"agents: [{name: x, tools: [a], model: {breaker: {cooldown: -3s}}}]",
	}, "\n"))
	require.ErrorContains(t, err, "model.breaker.failures: must be at least 1, got -1")
	require.ErrorContains(t, err, "model.breaker.cooldown: must be > 0, got -2s")
	require.ErrorContains(t, err, "model.fallback_cooldown: must be > 0, got -1m0s")
	require.ErrorContains(t, err, "agents[0].model.breaker.cooldown: must be > 0, got -3s")
}

func noEnv(string) (string, bool) { return "", false }

func TestValidateHandoffWhen(t *testing.T) {
	// rules is agent x, handing over to y, with handoff_when lines that
	// start at line 10 (indent them by eight spaces).
	rules := func(lines ...string) string {
		return withAgent(append(append([]string{"  - name: x", "    handoffs: [y]", "    policies:", "      handoff_when:"}, lines...), "  - name: y")...)
	}
	runProblems(t, []problemCase{
		{"tool_failures negative", rules("        tool_failures: -1"), 10, "agents[0].policies.handoff_when.tool_failures", "must be at least 0 (0: off), got -1"},
		{"steps_without_progress negative", rules("        steps_without_progress: -2"), 10, "agents[0].policies.handoff_when.steps_without_progress", "must be at least 0 (0: off), got -2"},
		{"user_asks bad regexp", rules("        user_asks: '(?i)a (person|human'"), 10, "agents[0].policies.handoff_when.user_asks", "invalid regular expression: missing closing )"},
		{"user_asks bad flag", rules("        user_asks: '(?z)person'"), 10, "agents[0].policies.handoff_when.user_asks", "invalid regular expression: invalid or unsupported Perl syntax"},
		{"unknown field", rules("        bogus: 1"), 10, "agents[0].policies.handoff_when.bogus", `unknown field "bogus"`},
		{"unknown field in a flow mapping", withAgent(
			"  - name: x",
			"    handoffs: [human]",
			"    policies: {handoff_when: {bogus: 1}}"), 8, "agents[0].policies.handoff_when.bogus", `unknown field "bogus"`},
		{"wrong type", rules("        tool_failures: three"), 10, "agents[0].policies.handoff_when.tool_failures", "cannot unmarshal !!str `three` into int"},
		{"no handoffs", withAgent(
			"  - name: x",
			"    policies:",
			"      handoff_when: {tool_failures: 3}"), 8, "agents[0].policies.handoff_when", "handoff_when needs handoffs: name the agents it may hand over to"},
		{"empty handoffs", withAgent(
			"  - name: x",
			"    handoffs: []",
			"    policies:",
			"      handoff_when: {user_asks: person}"), 9, "agents[0].policies.handoff_when", "handoff_when needs handoffs"},
		{"a person's agent", withAgent(
			"  - name: x",
			"    kind: human",
			"    handoffs: ['*']",
			"    policies:",
			"      handoff_when: {tool_failures: 3}"), 10, "agents[0].policies.handoff_when", "handoff_when applies to llm agents: a person (kind: human) hands over themselves"},
	})
}

// A person's agent without handoffs is told the one thing to fix: drop
// handoff_when (naming handoffs would not help).
func TestValidateHandoffWhenHumanOnce(t *testing.T) {
	_, err := parse(withAgent(
		"  - name: x",
		"    kind: human",
		"    policies:",
		"      handoff_when: {steps_without_progress: 2}"))
	ps := Problems(err)
	require.Len(t, ps, 1, "%v", err)
	require.Contains(t, ps[0].Reason, "a person (kind: human)")
}

// Every refusal of a handoff_when is reported at once, each at its field.
func TestValidateHandoffWhenAllProblems(t *testing.T) {
	_, err := parse(withAgent(
		"  - name: x",
		"    policies:",
		"      handoff_when: {tool_failures: -1, steps_without_progress: -1, user_asks: '['}"))
	ps := Problems(err)
	require.Len(t, ps, 4, "%v", err)
	paths := make([]string, len(ps))
	for i, p := range ps {
		paths[i] = p.Path
		require.Equal(t, 8, p.Line, "%v", p)
	}
	require.Equal(t, []string{
		"agents[0].policies.handoff_when",
		"agents[0].policies.handoff_when.tool_failures",
		"agents[0].policies.handoff_when.steps_without_progress",
		"agents[0].policies.handoff_when.user_asks",
	}, paths)
}

func TestValidateHandoffWhenValid(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  *HandoffWhen
	}{
		{"left out: no rule", nil, nil},
		{"null: no rule", []string{"    policies: {handoff_when: null}"}, nil},
		{"every rule", []string{
			"    policies:",
			"      handoff_when:",
			"        tool_failures: 3",
			"        steps_without_progress: 5",
			`        user_asks: '(?i)\b(talk|speak) to (a )?(person|human)\b'`,
		}, &HandoffWhen{ToolFailures: 3, StepsWithoutProgress: 5, UserAsks: `(?i)\b(talk|speak) to (a )?(person|human)\b`}},
		{"zeros are off, and kept", []string{
			"    policies: {handoff_when: {tool_failures: 0, steps_without_progress: 0, user_asks: ''}}",
		}, &HandoffWhen{}},
		{"one rule, from a variable", []string{
			"    policies:",
			"      handoff_when:",
			"        tool_failures: ${N:-4}",
		}, &HandoffWhen{ToolFailures: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(withAgent(append([]string{"  - name: x", "    handoffs: [human]"}, tc.lines...)...))
			require.NoError(t, err)
			require.Equal(t, tc.want, f.Agents[0].Policies.HandoffWhen)
		})
	}
}

// A provider names who runs a tool: a fallback of another provider may
// stand in for a tool that fails fatally (policies.RungHelps).
func TestToolProvider(t *testing.T) {
	f, err := parse(withTool(
		"  - {name: a, http: {url: http://t/a}, provider: openai, fallback: b}",
		"  - {name: b, http: {url: http://t/b}, provider: aws/eu-west-1}"))
	require.NoError(t, err)
	require.Equal(t, "openai", f.Tools[0].Provider)
	require.Equal(t, "aws/eu-west-1", f.Tools[1].Provider)
	require.Empty(t, f.Tools[2].Provider, "optional")
}
