package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/unstuck-dev/unstuck/workflows"
)

func TestRunMetadata(t *testing.T) {
	sum, det := runMetadata(workflows.AgentInput{
		Agent: "travel", Task: "Book NYC\nto LAX", Input: json.RawMessage(`{"to":"LAX","from":"NYC"}`),
	})
	if sum != "travel: Book NYC to LAX" {
		t.Errorf("summary = %q", sum)
	}
	for _, want := range []string{"**agent:** `travel`", "**task:** Book NYC to LAX", "**input keys:** `from`, `to`"} {
		if !strings.Contains(det, want) {
			t.Errorf("details lack %q:\n%s", want, det)
		}
	}

	long, _ := runMetadata(workflows.AgentInput{Agent: "a", Task: strings.Repeat("é", 500)})
	if n := len([]rune(long)); n != summaryLimit {
		t.Errorf("long summary is %d characters, want %d", n, summaryLimit)
	}

	fork, det := runMetadata(workflows.AgentInput{From: &workflows.ForkFrom{WorkflowID: "w1", NodeID: "n3"}})
	if fork != "fork of w1 at n3" || !strings.Contains(det, "**fork of:** `w1` at node `n3`") {
		t.Errorf("fork summary %q details %q", fork, det)
	}
}
