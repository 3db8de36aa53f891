package repair

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/unstuck-dev/unstuck/config"
)

// Repair over the corpus, one call per op: the cost of mending a call
// without a model, schema compilation included.
func BenchmarkRepair(b *testing.B) {
	cases := GenerateCorpus(300, 1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := cases[i%len(cases)]
		i++
		Repair(c.Schema, c.Args, Options{Today: today})
	}
}

// The same with each tool's schema compiled once, as the workflow holds
// it (Options.Compiled).
func BenchmarkRepairCompiled(b *testing.B) {
	cases := GenerateCorpus(300, 1)
	compiled := make([]*jsonschema.Schema, len(cases))
	for i, c := range cases {
		s, err := config.CompileSchema("bench", c.Schema)
		if err != nil {
			b.Fatal(err)
		}
		compiled[i] = s
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % len(cases)
		i++
		Repair(cases[k].Schema, cases[k].Args, Options{Today: today, Compiled: compiled[k]})
	}
}

// A rejection message read and acted on.
func BenchmarkRepairRejection(b *testing.B) {
	s := schemaOf(b, looseFlight)
	args := obj(b, `{"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "class": "business class"}`)
	msg := "Invalid date format for 'departure_date'; value for 'class' must be one of [economy, premium_economy, business, first]"
	b.ReportAllocs()
	for b.Loop() {
		if !RepairRejection(s, args, msg, Options{}).Valid {
			b.Fatal("not repaired")
		}
	}
}

// Whole-argument text read as a JSON object: a Python dict, and the same
// double-encoded; and a megabyte of lenient JSON, the largest text read.
func BenchmarkRepairText(b *testing.B) {
	big := `{'notes': '` + strings.Repeat("x", MaxBytes-64) + `',}`
	for _, c := range []struct{ name, text string }{
		{"python-dict", `{'origin': 'LHR', 'destination': 'CDG', 'departure_date': '2024-10-26', 'passengers': 2, 'nonstop': True,}`},
		{"double-encoded", `"{\"origin\": \"LHR\", \"destination\": \"CDG\", \"departure_date\": \"2024-10-26\", \"passengers\": 2}"`},
		{"1MiB", big},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if RepairText(c.text).JSON == nil {
					b.Fatal("not read")
				}
			}
		})
	}
}
