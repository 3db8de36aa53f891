package flakygraph

import "strings"

// Agent is the scenario's agent name.
const Agent = "seeker"

// MaxSteps is the scenario's max_steps, the seed simulation's.
const MaxSteps = 100

const configTemplate = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: step_a, http: { url: "{{TOOLS}}/a" }, parameters: { type: object } }
  - { name: flaky_b, http: { url: "{{TOOLS}}/b" }, retry: { max_attempts: 1 }, parameters: { type: object } }
  - { name: check_c, http: { url: "{{TOOLS}}/c" }, retry: { max_attempts: 1 }, parameters: { type: object } }
  - { name: step_d, http: { url: "{{TOOLS}}/d" }, parameters: { type: object } }
agents:
  - name: seeker
    instructions: Walk the graph.
    tools: [step_a, flaky_b, check_c, step_d]
    graph:
      start: A
      nodes:
        A: { tool: step_a, args: { seed: "†input.seed" } }
        B: { tool: flaky_b, args: { seed: "†input.seed" }, output_path: "†state.b" }
        C: { tool: check_c, args: { seed: "†input.seed" } }
        D: { tool: step_d, args: { seed: "†input.seed" } }
        E: { end: true, output: "†state.b || †input.fallback" }
      edges:
{{EDGES}}
    policies:
      max_steps: 100
      loop: { window: 64, repeats: 3 }
      escalation: [retry, explore, stop]
`

// seedEdges are the seed's: C -> A listed before C -> D, so the walk
// never leaves the cycle by itself.
const seedEdges = `        - { from: A, to: B }
        - { from: B, to: C }
        - { from: C, to: A }
        - { from: C, to: D }
        - { from: D, to: E }`

// routeBackEdges route B's failures back to A, as users write them.
const routeBackEdges = `        - { from: A, to: B }
        - { from: B, to: C, when: "ok" }
        - { from: B, to: A, when: "!ok" }
        - { from: C, to: A }
        - { from: C, to: D }
        - { from: D, to: E }`

// Config is the scenario's config file: its tools at toolsURL (Tools),
// its model at modelURL (never called: the graph has no llm node), B's
// failures routed back to A when routeBack.
func Config(modelURL, toolsURL string, routeBack bool) string {
	edges := seedEdges
	if routeBack {
		edges = routeBackEdges
	}
	return strings.NewReplacer("{{MODEL}}", modelURL, "{{TOOLS}}", toolsURL, "{{EDGES}}", edges).Replace(configTemplate)
}

// Graph names the two ways the scenario's graph is written.
func Graph(routeBack bool) string {
	if routeBack {
		return "B's failures routed back (B -> A when !ok)"
	}
	return "the seed's edges"
}
