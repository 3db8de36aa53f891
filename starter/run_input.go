package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// agentInput checks the run flags and builds the workflow input. A bad
// flag is a usage error naming it, caught before anything is started.
func (o *runOptions) agentInput() (workflows.AgentInput, error) {
	var in workflows.AgentInput
	if strings.TrimSpace(o.agent) == "" {
		return in, usageErrorf("--agent is required: the name of an agent in the worker's config")
	}
	if strings.TrimSpace(o.task) == "" {
		return in, usageErrorf("--task is required: what the agent should do")
	}
	if strings.TrimSpace(o.taskQueue) == "" {
		return in, usageErrorf("--task-queue is empty (the worker's default is %q)", workflows.TaskQueue)
	}
	in.Agent, in.Task, in.By = o.agent, o.task, o.by
	if m := o.firstMessage(); m != nil {
		if err := m.Validate(); err != nil {
			return in, usageErrorf("--message: %v", err)
		}
	}
	if o.input != "" {
		raw, err := parseJSONObject("--input", []byte(o.input))
		if err != nil {
			return in, err
		}
		in.Input = raw
	}
	if o.outputSchema != "" {
		schema, err := outputSchema(o.outputSchema)
		if err != nil {
			return in, err
		}
		in.OutputSchema = schema
	}
	return in, nil
}

// parseJSONObject accepts exactly one JSON object and returns it compacted.
func parseJSONObject(flag string, text []byte) (json.RawMessage, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return nil, usageErrorf("%s is not valid JSON: %v", flag, err)
	}
	if dec.More() {
		return nil, usageErrorf("%s has extra data after the JSON object", flag)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usageErrorf("%s must be a JSON object like {\"key\": \"value\"}, got %s", flag, jsonKind(v))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, bytes.TrimSpace(text)); err != nil {
		return nil, usageErrorf("%s is not valid JSON: %v", flag, err)
	}
	return buf.Bytes(), nil
}

// outputSchema reads --output-schema: inline JSON or @file.json.
func outputSchema(value string) (map[string]any, error) {
	const flag = "--output-schema"
	text := []byte(value)
	name := flag
	if path, ok := strings.CutPrefix(value, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, usageErrorf("%s: cannot read %s: %v", flag, path, err)
		}
		text, name = b, fmt.Sprintf("%s (file %s)", flag, path)
	}
	raw, err := parseJSONObject(name, text)
	if err != nil {
		return nil, err
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, usageErrorf("%s: %v", name, err)
	}
	return schema, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// newWorkflowID is <agent>-<UTC YYYYMMDD-HHMMSS>-<6 hex>: readable, sorted
// by time, and unique enough for runs started in the same second.
func newWorkflowID(agent string) (string, error) {
	return workflowIDAt(agent, time.Now(), rand.Read)
}

func workflowIDAt(agent string, now time.Time, read func([]byte) (int, error)) (string, error) {
	stamp, err := stampAt(now, read)
	if err != nil {
		return "", err
	}
	return agent + "-" + stamp, nil
}

// newStamp is <UTC YYYYMMDD-HHMMSS>-<6 hex>, a workflow id without its
// agent: what tells apart the ids and queues of one eval from another's.
func newStamp() (string, error) {
	return stampAt(time.Now(), rand.Read)
}

func stampAt(now time.Time, read func([]byte) (int, error)) (string, error) {
	b := make([]byte, 3)
	if _, err := read(b); err != nil {
		return "", fmt.Errorf("generate a workflow id: %w", err)
	}
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b), nil
}

// explainStartError adds what to do to the usual start failures.
func explainStartError(workflowID string, err error) error {
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("workflow id %s is already running: pick another --id, or follow it with `unstuck status %s`",
			workflowID, workflowID)
	}
	var invalid *serviceerror.InvalidArgument
	if errors.As(err, &invalid) {
		// The usual cause is a namespace without the search attributes
		// the run is started with; the server's words say which.
		return fmt.Errorf("start %s: %w\nif it says the namespace has no mapping for the %s search attribute: "+
			"start the worker first (it registers the search attributes and waits until the server takes them), "+
			"or, if they were just created, start the run again in a few seconds (a cluster takes new ones at its next "+
			"namespace cache refresh, every 2 s by default); to create them by hand: "+
			"`temporal operator search-attribute create --name %s --type Keyword`",
			workflowID, err, signals.AttrAgentName, signals.AttrAgentName)
	}
	return fmt.Errorf("start %s: %w", workflowID, err)
}
