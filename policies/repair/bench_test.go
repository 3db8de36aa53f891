package repair

import (
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
