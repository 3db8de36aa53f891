package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// modelOutageConfig is the config of BenchmarkModelOutage, default
// policies: a model with one fallback, both on the scripted server, an
// echo lookup, a free-form agent and a graph of modelRequests llm nodes
// (each one model request and its lookup) ending with the last lookup.
// {{OUTAGE}} is the model's outage key when the cell sets max_wait.
const modelOutageConfig = `
model: { base_url: "{{MODEL}}", name: ` + modelPrimary + `, fallbacks: [ { name: ` + modelFallback + ` } ]{{OUTAGE}} }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - { name: looker, instructions: Look it up then answer., tools: [lookup] }
  - name: graph_looker
    instructions: Look it up.
    tools: [lookup]
    graph:
      start: L1
      nodes: { L1: { llm: true }, L2: { llm: true }, L3: { llm: true }, E: { end: true, output: "†state.out" } }
      edges: [ { from: L1, to: L2 }, { from: L2, to: L3 }, { from: L3, to: E } ]
`

// BenchmarkModelOutage (issue 51, item 4: the model provider too): 100
// runs at once per cell on a fresh worker process, default policies, the
// model with one fallback (model.fallbacks); each run asks the model
// modelRequests times (free-form: lookups then final_output; graph: an
// llm node a lookup). In the outage cells both models answer 503 from
// the cell's first model request until outageDown after it, then answer;
// a control cell per shape has them up. Per cell: correct completions
// (the output the script leads to), runs handed to a person, runs
// stopped or failed, the requests that reached the models while they
// were down (both, then each) against what the worker's breakers let
// through, the delay from the models' recovery to each completed run's
// end (p50, p99), the runs that parked (phase waiting_outage) and their
// time parked (p50), and the history bytes of a parked run against a run
// of the control.
func BenchmarkModelOutage(b *testing.B) {
	benchModelOutage(b, upAndDownCells("", outageRuns), outageHeader, outageSummary.String)
}

// BenchmarkModelOutageLong (issue 51, item 4, the long outage):
// BenchmarkModelOutage's outage cells with both models down outageLong
// and the model's outage.max_wait outageLongWait. No run may wait for
// ever, nor be lost: each must be handed on by the ladder (a person, or
// a stop whose report says the outage was waited out) once it has waited
// its bound. A config the worker refuses (a build without model.outage)
// is said in the cell's row; no run starts.
func BenchmarkModelOutageLong(b *testing.B) {
	cells := []silentCell{
		{fault: fault{kind: faultOutage, downFor: outageLong}, runs: outageRuns, maxWait: outageLongWait},
		{fault: fault{kind: faultOutage, downFor: outageLong}, graph: true, runs: outageRuns, maxWait: outageLongWait},
	}
	benchModelOutage(b, cells, outageLongHeader, outageSummary.long)
}

// benchModelOutage runs model outage cells on one worker build, reports
// each outage cell's figures and prints the cells' table: header said of
// the model (modelHeader), then a row a cell (row of its summary, and
// the requests each model got while down); then how the first run of a
// cell that did not end as expected ended.
func benchModelOutage(b *testing.B, cells []silentCell, header string, row func(outageSummary) string) {
	bin := buildWorker(b)
	for range b.N {
		var rows, notes []string
		for _, c := range cells {
			r, down, refused := runModelCell(b, bin, c)
			if refused != nil {
				rows = append(rows, fmt.Sprintf("| %s | config refused, no run started: %s |", outageCellName(c), firstLine(refused.Error())))
				continue
			}
			sum := summarizeModelOutage(b, c, r, down)
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", outageCellName(c), row(sum), down.split()))
			if sum.why != "" {
				notes = append(notes, fmt.Sprintf("%s: %.300s", outageCellName(c), sum.why))
			}
			if c.fault.downFor > 0 {
				sum.report(b, shapeName(c.graph))
			}
		}
		fmt.Println(modelHeader(fmt.Sprintf(header, fmt.Sprint(config.DefaultFailures))))
		fmt.Println(strings.Join(rows, "\n"))
		fmt.Println("How the first run of a cell that did not end as expected ended:")
		fmt.Println(strings.Join(notes, "\n"))
	}
}

// runModelCell runs one cell's runs on a fresh scripted model and worker.
// refused is the config's error when the worker would refuse it: then no
// worker or run starts.
func runModelCell(b *testing.B, bin string, c silentCell) (r cellRuns, down *modelDown, refused error) {
	b.Helper()
	down = newModelDown(c.fault)
	cfg := func(url string) string {
		outage := ""
		if c.maxWait > 0 {
			outage = fmt.Sprintf(", outage: { max_wait: %s }", c.maxWait)
		}
		return strings.NewReplacer("{{MODEL}}", url, "{{OUTAGE}}", outage).Replace(modelOutageConfig)
	}
	if _, err := config.Parse("model-outage.yaml", []byte(cfg("http://127.0.0.1:1/v1")), app.ConfigOptions()); err != nil {
		return r, down, err
	}
	script := down.script(lookupScript)
	sw := startScripted(b, bin, "model-outage", map[string]scriptedmodel.Script{modelPrimary: script, modelFallback: script}, cfg)
	defer sw.close()
	in := workflows.AgentInput{Agent: "looker", Task: "look it up, then answer"}
	if c.graph {
		in = workflows.AgentInput{Agent: "graph_looker", Task: graphTask}
	}
	r = cellRuns{queue: sw.queue}
	r.ends, r.handed, r.wall = runToEnd(sw.queue, c.runs, in, silentCellTime)
	r.modelRequests = sw.model.RequestCount()
	return r, down, nil
}

// modelHeader is an outage table's header said of the model: its calls
// are the requests of both models, and a last column gives each's.
func modelHeader(header string) string {
	said := strings.NewReplacer("| service |", "| model |", "calls while down", "requests while down").Replace(header)
	head, rule, _ := strings.Cut(said, "\n")
	return head + " requests while down, primary / fallback |\n" + rule + "---|"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
