package workflows

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/config"
)

// Continue-as-new carries the whole run (no lossy summary), and Temporal
// refuses a workflow input over 2 MB by terminating the run. A large run
// is therefore carried gzip-compressed (JSON of tool results shrinks
// several times), and one still too large stops with a report instead of
// being terminated without one.
const (
	compressAbove = 64 << 10 // smaller runs travel as plain JSON, readable in the UI
	maxCarried    = config.MaxPayloadBytes
	// maxCarriedJSON bounds the run as JSON, on both sides: a carried
	// run is never larger, and decompression stops there (a small gzip
	// input may otherwise expand without limit).
	maxCarriedJSON = config.MaxCarriedJSONBytes
)

// carryRun puts the run into the continue-as-new input. Checkpoints are
// dropped before the run is refused as too large: an edit does without
// them (it starts the loop escape afresh), and a run the released code
// carried must not stop for them.
func carryRun(in *AgentInput, run *Run) error {
	err := carryWhole(in, run)
	if err == nil || !run.DropCheckpoints() {
		return err
	}
	return carryWhole(in, run)
}

func carryWhole(in *AgentInput, run *Run) error {
	data, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("cannot carry the run into continue-as-new: %v", err)
	}
	if len(data) > maxCarriedJSON {
		return fmt.Errorf("the run's state is %d MiB as JSON, over the %d MiB that continue-as-new can carry; "+
			"large tool results are the usual cause", len(data)>>20, maxCarriedJSON>>20)
	}
	if len(data) <= compressAbove {
		in.Continued = run
		return nil
	}
	gz := gzipped(data)
	if len(gz) > maxCarried {
		return fmt.Errorf("the run's state is %d KiB compressed (%d KiB as JSON), over the %d KiB that continue-as-new can carry; "+
			"large tool results are the usual cause", len(gz)>>10, len(data)>>10, maxCarried>>10)
	}
	in.ContinuedGzip = gz
	return nil
}

// gzipped compresses a run's JSON as it is carried (and read by a fork).
func gzipped(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(data)
	_ = zw.Close()
	return buf.Bytes()
}

// uncarryRun reads a compressed run back.
func uncarryRun(gz []byte) (*Run, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxCarriedJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCarriedJSON {
		return nil, fmt.Errorf("the carried run expands to over %d MiB", maxCarriedJSON>>20)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
