package refs_test

import (
	"strconv"
	"testing"

	"github.com/unstuck-dev/unstuck/refs"
)

// benchArgs is a realistic tool call: 20 fields, nested a little, five of
// them references.
func benchArgs() map[string]any {
	return map[string]any{
		"query":       "†input.question",
		"customer_id": "†state.customer.id",
		"language":    "en",
		"max_results": 25.0,
		"include_raw": false,
		"timeout_ms":  3000.0,
		"region":      "†state.customer.region || †input.region",
		"sort":        "relevance",
		"filters": map[string]any{
			"since":    "2024-01-01",
			"until":    "2024-12-31",
			"category": "†state.triage.category",
			"tags":     []any{"billing", "urgent", "vip"},
		},
		"page":        1.0,
		"page_size":   50.0,
		"format":      "json",
		"callback":    "https://example.com/hooks/search",
		"trace_id":    "7f9c2e1a-4b3d-4c8e-9a1f-2d6b5e8c0a37",
		"dry_run":     true,
		"notes":       "Look for duplicated charges in the last quarter.",
		"previous":    "†state.search.results.0",
		"priority":    "high",
		"_outputPath": "†state.search.next",
	}
}

func benchState() map[string]any {
	return map[string]any{
		"customer": map[string]any{"id": "cus_123", "region": "eu-west-1", "plan": "pro"},
		"triage":   map[string]any{"category": "billing", "confidence": 0.93},
		"search":   map[string]any{"results": []any{map[string]any{"id": "r1"}, map[string]any{"id": "r2"}}},
	}
}

func BenchmarkFind(b *testing.B) {
	args := benchArgs()
	b.ReportAllocs()
	for b.Loop() {
		if got := refs.Find(args); len(got) != 6 { // 5 references and the _outputPath
			b.Fatalf("found %d", len(got))
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	args, state := benchArgs(), benchState()
	delete(args, "_outputPath")
	input := map[string]any{"question": "Why was I charged twice?", "region": "us-east-1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := refs.Resolve(args, state, input); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// benchCalls is a step of n calls: call i writes †state.s<i>.out and reads
// the outputs of the two calls before it and a field of the input.
func benchCalls(n int) []refs.CallIO {
	calls := make([]refs.CallIO, n)
	for i := range calls {
		w := refs.Path{Root: refs.RootState, Steps: []string{"s" + strconv.Itoa(i), "out"}}
		calls[i].Write = &w
		calls[i].Reads = append(calls[i].Reads, refs.Path{Root: refs.RootInput, Steps: []string{"q"}})
		for _, j := range []int{i - 1, i - 2} {
			if j >= 0 {
				calls[i].Reads = append(calls[i].Reads,
					refs.Path{Root: refs.RootState, Steps: []string{"s" + strconv.Itoa(j)}})
			}
		}
	}
	return calls
}

func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			calls := benchCalls(n)
			b.ReportAllocs()
			for b.Loop() {
				refs.Plan(calls)
			}
		})
	}
}
