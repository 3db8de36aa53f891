package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// silentRuns is the number of runs at once in each cell (the 100).
const silentRuns = 100

// silentCellTime bounds a cell: a run still open then is ended (runAll)
// and counted as failed.
const silentCellTime = 15 * time.Minute

// silentConfig is the benchmark's config, default policies throughout:
// one booking tool per way of checking it, the same service behind each.
// book is unchecked; book_expr holds its answer to an expression (a wrong
// body shows in it); book_rb reads the booking back by the confirmation
// it claims (a booking that is not there shows only so); book_num holds
// its answer to an expression over numbers.
const silentConfig = `
model: { base_url: "{{MODEL}}", name: silent }
tools:
  - { name: book, description: Book a room., effect: write, http: { url: "{{TOOLS}}/book" }, parameters: { type: object, properties: { room: { type: string } }, required: [room] } }
  - name: book_expr
    description: Book a room.
    effect: write
    http: { url: "{{TOOLS}}/book" }
    parameters: { type: object, properties: { room: { type: string } }, required: [room] }
    verify: "result.status == 'booked' && result.room == args.room"
  - name: book_rb
    description: Book a room.
    effect: write
    http: { url: "{{TOOLS}}/book" }
    parameters: { type: object, properties: { room: { type: string } }, required: [room] }
    verify: { tool: get_booking, args: { confirmation: "†result.confirmation" }, expect: "result.state == 'confirmed' && result.room == args.room" }
  - name: book_num
    description: Book a room.
    effect: write
    http: { url: "{{TOOLS}}/book" }
    parameters: { type: object, properties: { room: { type: string } }, required: [room] }
    verify: "result.status == 'booked' && result.room == args.room && result.nights > 0 && result.nights == 1"
  - { name: get_booking, description: Read a booking., http: { method: GET, url: "{{TOOLS}}/get_booking" }, parameters: { type: object } }
agents:
  - { name: booker, instructions: Book the room and answer its confirmation., tools: [book, book_expr, book_rb, book_num]{{POLICIES}} }
{{GRAPHS}}`

// silentGraph is the graph agent graph_TOOL: it books with TOOL, going
// again while the call fails, and ends with the booking it got.
const silentGraph = `
  - name: graph_{{TOOL}}
    instructions: Book the room.
    tools: [{{TOOL}}]{{POLICIES_LINE}}
    graph:
      start: B
      nodes:
        B: { tool: {{TOOL}}, args: { room: "12" }, output_path: "†state.booking" }
        E: { end: true, output: "†state.booking" }
      edges:
        - { from: B, to: E, when: "ok" }
        - { from: B, to: B, when: "!ok" }
`

// silentCell is one cell of the matrix: the fault, the tool the run
// calls (which says how the call is checked), whether a graph agent calls
// it rather than the free-form one, and how many runs go at once; and
// the agents' outage.max_wait (0: the default).
type silentCell struct {
	fault   fault
	tool    string
	graph   bool
	runs    int
	maxWait time.Duration
}

func (c silentCell) String() string {
	life := "transient"
	if c.fault.permanent {
		life = "permanent"
	}
	check := map[string]string{"book": "no verify", "book_expr": "verify expr", "book_rb": "verify read-back", "book_num": "verify numbers"}[c.tool]
	shape := "free-form"
	if c.graph {
		shape = "graph"
	}
	if c.runs == 1 {
		shape += ", 1 run"
	}
	return fmt.Sprintf("%-9s | %-16s | %-9s | %-16s", shape, c.fault.kind, life, check)
}

// BenchmarkSilentFailures (issue "Calls that lie"): a fault-injection
// matrix, 100 runs at once per cell on a fresh worker process and scripted
// model, default policies. A booking service fails each run's writes
// clearly (503) or silently (200 with a wrong body; 200 and nothing
// booked), transiently (the first two tries) or for good; the runs book
// unchecked, checked by an expression, or checked by a read-back. Per
// cell, judged against the service's own state: the share of runs whose
// output names a booking the service has, runs that completed naming
// one it does not have (wrong outputs), runs the ladder handed to a
// person, model requests and tool requests per run, and bookings made
// more than once for a run (must be 0). A last row, the control, is one
// run alone on a clear transient fault. The numeric-postcondition rows
// check with an expression over numbers (book_num) on a silent-body transient
// fault, in each shape.
func BenchmarkSilentFailures(b *testing.B) {
	bin := buildWorker(b)
	svc := startBookings()
	defer svc.Close()
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		for _, kind := range []string{faultClear, faultBody, faultNoEffect} {
			for _, permanent := range []bool{false, true} {
				for _, tool := range []string{"book", "book_expr", "book_rb"} {
					cells = append(cells, silentCell{fault: fault{kind: kind, permanent: permanent}, tool: tool, graph: graph, runs: silentRuns})
				}
			}
		}
	}
	cells = append(cells, readBackDownCells()...)
	// The control: one run alone against a clear transient fault, where
	// no other run's failures trip the worker's breaker.
	cells = append(cells, silentCell{fault: fault{kind: faultClear}, tool: "book", graph: false, runs: 1})
	// A postcondition over numbers, on a silent transient fault, each shape.
	cells = append(cells, silentCell{fault: fault{kind: faultBody}, tool: "book_num", graph: false, runs: silentRuns}, silentCell{fault: fault{kind: faultBody}, tool: "book_num", graph: true, runs: silentRuns})
	for range b.N {
		runSilentCells(b, bin, svc, cells)
	}
}

// runSilentCells runs each cell and prints the matrix's rows, then how
// the first run of a cell that did not end with a booking ended.
func runSilentCells(b *testing.B, bin string, svc *bookings, cells []silentCell) {
	var rows, notes []string
	for _, c := range cells {
		sum := silentCellRun(b, bin, svc, c)
		rows = append(rows, fmt.Sprintf("| %s | %s |", c, sum))
		if sum.why != "" {
			notes = append(notes, fmt.Sprintf("%s: %.300s", c, sum.why))
		}
	}
	fmt.Println(silentHeader)
	fmt.Println(strings.Join(rows, "\n"))
	fmt.Println("How the first run of a cell that did not end with a booking ended:")
	fmt.Println(strings.Join(notes, "\n"))
}

// silentCellRun runs one cell on a fresh scripted model and worker.
func silentCellRun(b *testing.B, bin string, svc *bookings, c silentCell) silentSummary {
	b.Helper()
	r := runSilentCell(b, bin, svc, c)
	return summarizeSilent(svc, r.ends, r.handed, r.modelRequests, r.wall)
}

// cellRuns is how a cell's runs went: on which task queue, how each
// ended and which the ladder handed to a person (runToEnd), the wall
// time and the model requests of all.
type cellRuns struct {
	queue         string
	ends          []runOutcome
	handed        map[string]bool
	wall          time.Duration
	modelRequests int
}

// policies is the key the cell's agents add, after sep, when the cell
// sets their policies: {{POLICIES}} in silentConfig's flow mapping,
// {{POLICIES_LINE}} in silentGraph's block one.
func (c silentCell) policies(sep string) string {
	if c.maxWait == 0 {
		return ""
	}
	return fmt.Sprintf("%spolicies: { outage: { max_wait: %s } }", sep, c.maxWait)
}

// runSilentCell runs one cell's runs on a fresh scripted model and worker.
func runSilentCell(b *testing.B, bin string, svc *bookings, c silentCell) cellRuns {
	b.Helper()
	sw := startScripted(b, bin, "silent", map[string]scriptedmodel.Script{"silent": bookingScript}, func(url string) string {
		var graphs strings.Builder
		for _, tool := range []string{"book", "book_expr", "book_rb", "book_num"} {
			graphs.WriteString(strings.NewReplacer("{{TOOL}}", tool, "{{POLICIES_LINE}}", c.policies("\n    ")).Replace(silentGraph))
		}
		return strings.NewReplacer("{{MODEL}}", url, "{{TOOLS}}", svc.URL, "{{GRAPHS}}", graphs.String(), "{{POLICIES}}", c.policies(", ")).Replace(silentConfig)
	})
	defer sw.close()
	svc.cell(sw.queue, c.fault)
	in := workflows.AgentInput{Agent: "booker", Task: fmt.Sprintf("book room %s with %s", bookRoom, c.tool)}
	if c.graph {
		in.Agent = "graph_" + c.tool
	}
	r := cellRuns{queue: sw.queue}
	r.ends, r.handed, r.wall = runToEnd(sw.queue, c.runs, in, silentCellTime)
	r.modelRequests = sw.model.RequestCount()
	return r
}
