package replay

import (
	"context"
	"sync"

	historypb "go.temporal.io/api/history/v1"
	tlog "go.temporal.io/sdk/log"
)

// Source is one run to replay: the name a report gives it (workflow
// id/run id, or a file) and how to get its history.
type Source struct {
	Name string
	Load func(context.Context) (*historypb.History, error)
}

// Outcome is how one source replayed: Err is nil when it replayed; a
// *BadInputError (Bad) when it was no history this build replays; else
// the replay's failure, which Why says plainly.
type Outcome struct {
	Name string
	Err  error
	Why  string
}

// All replays every source, parallel at once (loading and replaying), and
// hands report each outcome in the sources' order as soon as it and all
// before it are known. A run that fails is replayed once more, alone (its
// history as loaded),
// before it is reported: starved of CPU on a busy CI machine, a replay can
// trip the SDK's deadlock detector (a workflow task that did not yield
// for 1 s), which a non-determinism never escapes by a second try.
func All(ctx context.Context, sources []Source, parallel int, logger tlog.Logger, report func(Outcome)) {
	var alone sync.RWMutex
	outcomes := make([]chan Outcome, len(sources))
	for i := range outcomes {
		outcomes[i] = make(chan Outcome, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				hist, o := load(ctx, sources[i])
				if hist == nil {
					outcomes[i] <- o
					continue
				}
				alone.RLock()
				o = replayed(o, hist, logger)
				alone.RUnlock()
				if o.Err != nil {
					alone.Lock()
					o = replayed(Outcome{Name: o.Name}, hist, logger)
					alone.Unlock()
				}
				outcomes[i] <- o
			}
		}()
	}
	go func() {
		for i := range sources {
			next <- i
		}
		close(next)
	}()
	for _, o := range outcomes {
		report(<-o)
	}
	wg.Wait()
}

// load reads and checks one source's history (nil, and the outcome,
// when it could not be read or is no history this build replays).
func load(ctx context.Context, s Source) (*historypb.History, Outcome) {
	out := Outcome{Name: s.Name}
	hist, err := s.Load(ctx)
	if err == nil {
		err = Check(hist)
	}
	if err != nil {
		out.Err, out.Why = err, err.Error()
		return nil, out
	}
	return hist, out
}

// replayed is out with how hist replayed.
func replayed(out Outcome, hist *historypb.History, logger tlog.Logger) Outcome {
	if err := History(hist, logger); err != nil {
		out.Err, out.Why = err, Explain(err, hist)
	}
	return out
}
