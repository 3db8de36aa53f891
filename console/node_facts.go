package console

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// nodeFacts are what the run holds about a node that the trace query
// does not answer: how a failed call failed (its class: transient,
// invalid_args, persistent, fatal, or the engine's own, such as
// structural or refused), the step it belongs to and what it spent. They
// are read from the run itself (the internal run query, as a fork reads
// it), field by field, so a field the run no longer has is left empty.
type nodeFacts struct {
	ID    string      `json:"id"`
	Class string      `json:"class"`
	Step  int         `json:"step"`
	Spent *spentFacts `json:"spent"`
}

// spentFacts is what one node cost: a request's replies, a call's tool
// activities.
type spentFacts struct {
	InputTokens   int64 `json:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	ModelRequests int64 `json:"model_requests"`
	ToolCalls     int64 `json:"tool_calls"`
}

// nodeFacts reads node nodeID's facts from run id's latest generation.
func (c *Console) nodeFacts(ctx context.Context, id, nodeID string) (nodeFacts, error) {
	var packed []byte
	if err := c.query(ctx, id, signals.QueryRun, &packed); err != nil {
		return nodeFacts{}, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		return nodeFacts{}, fmt.Errorf("the run query of %s: not gzip: %w", id, err)
	}
	var run struct {
		Nodes []nodeFacts `json:"nodes"`
	}
	if err := json.NewDecoder(io.LimitReader(zr, config.MaxCarriedJSONBytes)).Decode(&run); err != nil {
		return nodeFacts{}, fmt.Errorf("the run query of %s: %w", id, err)
	}
	for _, f := range run.Nodes {
		if f.ID == nodeID {
			return f, nil
		}
	}
	return nodeFacts{}, fmt.Errorf("run %s does not hold node %s any more", id, nodeID)
}
