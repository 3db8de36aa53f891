package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// The table marks an unverified call and its read-back in their rows, a
// passed check discreetly, and writes each failed check whole after it.
func TestRenderTableMarksChecks(t *testing.T) {
	reason := `read-back get_booking({"id":"B-1"}): expect "result.state == 'confirmed'" is false: result.state = "pending"`
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Agent: "travel", Tool: "book_room", At: t0, Error: reason,
			Output: json.RawMessage(`{"confirmation":"B-1"}`),
			Check: &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed'", Reason: reason, ReadBack: "n4",
				Seen: []signals.Seen{{Path: "result.state", Value: json.RawMessage(`"pending"`)}}}},
		{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n3"}, Agent: "travel", Tool: "get_booking",
			CheckOf: "n3", At: t0, Output: json.RawMessage(`{"state":"pending"}`)},
		{ID: "n5", Kind: signals.KindCall, Status: signals.StatusCompleted, Agent: "travel", Tool: "find_hotel", At: t0,
			Output: json.RawMessage(`{"hotel":"Ritz"}`), Check: &signals.Check{Kind: signals.CheckResultSchema, Passed: true}},
	}}))
	lines := strings.Split(buf.String(), "\n")
	require.Equal(t, []string{"n3", "call", "failed", "travel", "book_room", "-", "09:30:00.123", "unverified:", "read-back"},
		strings.Fields(lines[2])[:9])
	require.Equal(t, []string{"n4", "call", "completed", "travel", "get_booking", "(read-back", "of", "n3)", "n3"},
		strings.Fields(lines[3])[:9])
	require.Equal(t, []string{"n5", "call", "completed", "travel", "find_hotel", "-", "09:30:00.123", "verified;", "output:", `{"hotel":"Ritz"}`},
		strings.Fields(lines[4]))
	require.Contains(t, buf.String(), "\nunverified calls:\n"+
		"  n3 book_room, read_back result.state == 'confirmed' (read-back n4)\n"+
		"    result.state = \"pending\"\n"+
		"    reason: "+reason+"\n")
}

func TestRenderTableWithoutFailedChecksHasNoChecksSection(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n5", Kind: signals.KindCall, Status: signals.StatusCompleted, Tool: "t", Check: &signals.Check{Kind: signals.CheckVerify, Passed: true}},
	}}))
	require.NotContains(t, buf.String(), "unverified")
}

// A call whose read-back could not read says so in its row and in a
// section of its own, not as unverified.
func TestRenderTableMarksAnUnknownOutcome(t *testing.T) {
	reason := "the outcome of the write is unknown: its read-back get_booking could not read (HTTP 503)"
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Agent: "travel", Tool: "book_room", At: t0, Error: reason,
			Check: &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed'", Reason: reason, ReadBack: "n4", Unknown: true}},
	}}))
	lines := strings.Split(buf.String(), "\n")
	require.Equal(t, []string{"n3", "call", "failed", "travel", "book_room", "-", "09:30:00.123", "outcome_unknown:", "the"},
		strings.Fields(lines[2])[:9])
	require.NotContains(t, buf.String(), "unverified")
	require.Contains(t, buf.String(), "\ncalls whose outcome is unknown (their read-back could not read):\n"+
		"  n3 book_room, read_back result.state == 'confirmed' (read-back n4)\n"+
		"    reason: "+reason+"\n")
}
