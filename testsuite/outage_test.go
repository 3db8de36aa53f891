package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A fleet of runs whose one tool is down for a while, with default
// policies, waits the outage out and finishes by itself once the tool is
// back: each run parks in phase waiting_outage (no loop, no rung, no
// person, no step spent), probes again when the breaker lets a trial
// through, and completes with the tool's answer. Both shapes, each on a
// worker binary of its own, against a real HTTP tool that counts its
// calls.

// outageRuns is how many runs go at once in each shape: enough that the
// worker's breaker opens on several runs' calls, few enough that the two
// fleets do not slow the suite's tests that watch text as it streams
// (bench's BenchmarkOutage runs 100).
const outageRuns = 10

// outageFor is how long the tool is down, from its first call: shorter
// than the breaker's cooldown (config.DefaultCooldown, 30 s), so the runs
// are still parked when it comes back, and the test takes about the
// cooldown and a few seconds.
const outageFor = 10 * time.Second

// outageConfig: the reserve tool and an agent of each shape that reserves
// seat 12A with it; default policies. The graph goes round R while the
// call fails, as the free-form model (callUntilOK) calls again.
var outageConfig = `
model: { base_url: "{{MODEL}}", name: outage }
tools:
  - { name: reserve, http: { url: "{{TOOLS}}/reserve" }, parameters: { type: object, properties: { seat: { type: string } }, required: [seat] } }
agents:
` + twinsWalking("reserver", "instructions: Reserve seat 12A., tools: [reserve]", reserveGraph)

// reserveGraph reserves seat 12A at R, going round R while the call fails.
const reserveGraph = `graph: { start: R,
    nodes: { R: { tool: reserve, args: { seat: "12A" }, output_path: "†state.reserved" }, E: { end: true, output: "†state.reserved" } },
    edges: [ { from: R, to: E, when: "ok" }, { from: R, to: R, when: "!ok" } ] }`

func TestAnOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	waitOutAnOutage(t, freeForm)
}

func TestAnOutageIsWaitedOutInAGraph(t *testing.T) {
	t.Parallel()
	waitOutAnOutage(t, graph)
}

// waitOutAnOutage starts outageRuns runs of shape's reserver at once
// against an outageService, watches their status until they end, and
// checks each run and the calls that reached the service.
func waitOutAnOutage(t *testing.T, shape string) {
	svc := newOutageService(t)
	s := newBinaryStack(t, strings.ReplaceAll(outageConfig, "{{TOOLS}}", svc.URL),
		map[string]scriptedmodel.Script{"outage": callUntilOK("reserve", "")})
	runs := make([]client.WorkflowRun, outageRuns)
	for i := range runs {
		runs[i] = s.start(workflows.AgentInput{Agent: shape + "-reserver", Task: "reserve seat 12A"})
	}
	ends := awaitEnds(runs)
	w := watchOutage(s, svc, runs, ends)

	cooldown := config.DefaultCooldown.D()
	upAt, down, early := svc.figures()
	// The bound on the calls that reach the service while it is down, per
	// worker (one here): every call a run's own breaker lets through still
	// passes the worker's breaker of the tool, so the runs' breakers add
	// none, and the worker's lets through (a) the calls it admitted before
	// it could have seen config.DefaultFailures failures (early: those that
	// reached the service before it had answered that many; with runs
	// calling at once, more than the threshold may be in flight), then (b)
	// one trial a cooldown, none of which ends within an outage shorter
	// than the cooldown. No per-run term: parked runs do not call.
	trials := int(outageFor / cooldown)
	completed, others := 0, map[string]int{}
	for i, e := range ends {
		phase, ended := w.endedOpen[runs[i].GetID()]
		switch {
		case ended:
			others["still "+string(phase)]++
		case e.err == nil && e.res.Status == workflows.ResultCompleted:
			completed++
		case e.err != nil:
			others[endedBy(e.err)]++
		default:
			others[e.res.Status]++
		}
	}
	t.Logf("%s: %d of %d runs completed; the others: %v; calls while down %d (early %d, bound %d + %d trials); runs seen parked while down %d",
		shape, completed, len(runs), others, down, early, early, trials, w.parkedWhileDown)

	require.Equal(t, len(runs), completed, "every run completes by itself within the cooldown and 30 s after the service is back; the others: %v", others)
	require.NotZero(t, w.parkedWhileDown, "a run's status shows it waiting out reserve while the service is down")
	require.Empty(t, w.wrong, "a run in waiting_outage says what it waits out")
	require.LessOrEqual(t, down, early+trials, "calls that reached the service while it was down")
	deadline := upAt.Add(cooldown + 30*time.Second)
	for i, run := range runs {
		id := run.GetID()
		res := ends[i].res
		answered := svc.answeredTo(id)
		require.Len(t, answered, 1, "%s: one call reached the service once it was back, and it answered", id)
		require.JSONEq(t, answered[0], string(res.Output), "%s: the run's output is the service's answer", id)
		require.Empty(t, res.Escalations, "%s: an outage climbs no rung", id)
		require.Empty(t, s.status(run).Loops, "%s: waiting out an outage is not a loop", id)
		phases := phasesShown(t, run)
		require.Contains(t, phases, signals.PhaseWaitingOutage, "%s: the run waited the outage out", id)
		require.NotContains(t, phases, signals.PhaseAwaitingHuman, "%s: no person was asked", id)
		require.False(t, ends[i].closed.After(deadline), "%s closed at %s, more than the cooldown and 30 s after the service came back (%s)",
			id, ends[i].closed.Format(time.RFC3339Nano), upAt.Format(time.RFC3339Nano))
	}
	if shape == freeForm {
		require.Equal(t, 2*len(runs), s.model.RequestCount(), "the model is asked for the call and then with its answer: the outage spends no step")
	}
	recordAndReplay(t, runs[0], "outage_waited_out_"+strings.ReplaceAll(shape, "-", "_"))
}

// endedBy says in a few words how a run that failed ended: the reason a
// run that stopped itself gave, or the error.
func endedBy(err error) string {
	var app *temporal.ApplicationError
	var rep workflows.AgentResult
	if errors.As(err, &app) && app.Type() == signals.StoppedErrorType && app.Details(&rep) == nil {
		return fmt.Sprintf("stopped: %.160s", rep.Reason)
	}
	return fmt.Sprintf("failed: %.160s", err)
}

// outageService is the reserve tool: down (503) from its first call
// until outageFor after it, then up, answering each call with a
// reservation of its own. It counts, from its side, the calls that
// reached it while it was down, and keeps what it answered each run (by
// the Unstuck-Workflow-Id header).
type outageService struct {
	*toolServer
	mu       sync.Mutex
	upAt     time.Time // when it comes back; zero before its first call
	down     int       // calls that arrived while it was down
	early    int       // of those, the calls that arrived before it had answered config.DefaultFailures of them
	failed   int       // 503s answered
	answered map[string][]string
}

func newOutageService(t *testing.T) *outageService {
	o := &outageService{answered: map[string][]string{}}
	o.toolServer = newToolServer(t, o.handle)
	return o
}

func (o *outageService) handle(w http.ResponseWriter, r *http.Request, n int) {
	o.mu.Lock()
	now := time.Now()
	if o.upAt.IsZero() {
		o.upAt = now.Add(outageFor)
	}
	if now.Before(o.upAt) {
		o.down++
		if o.failed < config.DefaultFailures {
			o.early++
		}
		o.mu.Unlock()
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "reservations are down"})
		// Counted once the answer has left: a call that arrives later was
		// let through by a breaker that may have seen this failure.
		w.(http.Flusher).Flush()
		o.mu.Lock()
		o.failed++
		o.mu.Unlock()
		return
	}
	body := map[string]string{"seat": "12A", "confirmation": fmt.Sprintf("R-%d", n)}
	wf := r.Header.Get("Unstuck-Workflow-Id")
	b, _ := json.Marshal(body)
	o.answered[wf] = append(o.answered[wf], string(b))
	o.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

// isDown says whether the service is down at now: after its first call,
// before it comes back.
func (o *outageService) isDown(now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.upAt.IsZero() && now.Before(o.upAt)
}

// figures are when the service came back and what reached it while down.
func (o *outageService) figures() (upAt time.Time, down, early int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.upAt, o.down, o.early
}

// answeredTo is what the service answered run id's calls (200s only).
func (o *outageService) answeredTo(id string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.answered[id]
}

// runEnd is how a run ended: its result or error, and when the server
// closed it (zero while open). done is closed once it ended or was no
// longer waited for.
type runEnd struct {
	res    workflows.AgentResult
	err    error
	closed time.Time
	done   chan struct{}
}

// awaitEnds waits for each run's end in the background (at most five
// minutes, the runs' own bound).
func awaitEnds(runs []client.WorkflowRun) []*runEnd {
	ends := make([]*runEnd, len(runs))
	for i, run := range runs {
		e := &runEnd{done: make(chan struct{})}
		ends[i] = e
		go func() {
			defer close(e.done)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			e.err = run.Get(ctx, &e.res)
			if desc, err := serverClient.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID()); err == nil {
				if ct := desc.GetWorkflowExecutionInfo().GetCloseTime(); ct != nil {
					e.closed = ct.AsTime()
				}
			}
		}()
	}
	return ends
}

// outageWatch is what the test saw of the runs' status while they went.
type outageWatch struct {
	parkedWhileDown int                      // runs seen waiting out reserve while the service was down
	endedOpen       map[string]signals.Phase // the runs the watch ended, by the last phase seen of each
	wrong           []string                 // samples in waiting_outage that did not say what the run waits out
}

// watchOutage samples the status of the runs still open until every run
// has ended, or every open one waits for a person (nobody answers in this
// test), or the cooldown and 30 s have passed since the service came
// back; then it ends the runs still open.
func watchOutage(s *stack, svc *outageService, runs []client.WorkflowRun, ends []*runEnd) outageWatch {
	w := outageWatch{endedOpen: map[string]signals.Phase{}}
	last := map[string]signals.Phase{}
	parked := map[string]bool{}
	start := time.Now()
	for {
		open, handed := 0, 0
		for i, run := range runs {
			select {
			case <-ends[i].done:
				continue
			default:
			}
			open++
			v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.QueryStatus)
			var st signals.Status
			if err != nil || v.Get(&st) != nil {
				continue
			}
			id := run.GetID()
			last[id] = st.Phase
			switch st.Phase {
			case signals.PhaseAwaitingHuman:
				handed++
			case signals.PhaseWaitingOutage:
				if st.Outage == nil || st.Outage.Of != "reserve" || st.Outage.Since.IsZero() || st.Outage.NextProbe.Before(st.Outage.Since) {
					w.wrong = append(w.wrong, fmt.Sprintf("%s: %+v", id, st.Outage))
				} else if svc.isDown(time.Now()) && !parked[id] {
					parked[id] = true
					w.parkedWhileDown++
				}
			}
		}
		upAt, _, _ := svc.figures()
		deadline := start.Add(30 * time.Second) // the first call
		if !upAt.IsZero() {
			deadline = upAt.Add(config.DefaultCooldown.D() + 30*time.Second)
		}
		if open == 0 || open == handed || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i, run := range runs {
		select {
		case <-ends[i].done:
		default:
			w.endedOpen[run.GetID()] = last[run.GetID()]
		}
	}
	s.terminateStarted()
	for _, e := range ends {
		<-e.done
	}
	return w
}

// phasesShown are the phases a run's history set its AgentPhase search
// attribute to, in order.
func phasesShown(t *testing.T, run client.WorkflowRun) []signals.Phase {
	t.Helper()
	var phases []signals.Phase
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		p := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()[signals.AttrAgentPhase]
		if p == nil {
			return
		}
		var phase string
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &phase))
		phases = append(phases, signals.Phase(phase))
	})
	return phases
}
