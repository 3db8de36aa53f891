package repair

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/unstuck-dev/unstuck/config"
)

// corpusCall is one call of a benchmark: the arguments text as the model
// sent it, and the tool's schema, compiled once as the workflow holds it.
type corpusCall struct {
	tool corpus2Tool
	raw  string
}

// The repair cost per call of both corpora, side by side in one run
// (issue 14 item 8): from the arguments text to the result, decoding
// included, each tool's schema compiled once (Options.Compiled). Corpus 1
// is generated as maps, so its arguments are written out as text first,
// outside the timing.
func BenchmarkRepairPerCall(b *testing.B) {
	first := corpus1Calls(b)
	c := loadCorpus2(b)
	second := make([]corpusCall, len(c.cases))
	for i, k := range c.cases {
		second[i] = corpusCall{tool: c.tools[k.Tool], raw: k.Raw}
	}
	run := func(calls []corpusCall, opts Options) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := calls[i%len(calls)]
				i++
				o := opts
				o.Compiled = k.tool.compiled
				corpus2Repair(k.tool, k.raw, o)
			}
		}
	}
	b.Run("corpus=1", run(first, Options{Today: today}))
	b.Run("corpus=2", run(second, Options{Today: c.now}))
}

// corpus1Calls is the first corpus as calls with text arguments.
func corpus1Calls(b *testing.B) []corpusCall {
	b.Helper()
	cases := GenerateCorpus(300, 1)
	out := make([]corpusCall, len(cases))
	compiled := map[string]*jsonschema.Schema{}
	for i, c := range cases {
		raw, err := json.Marshal(c.Args)
		if err != nil {
			b.Fatal(err)
		}
		key, _ := json.Marshal(c.Schema)
		s := compiled[string(key)]
		if s == nil {
			if s, err = config.CompileSchema("bench", c.Schema); err != nil {
				b.Fatal(err)
			}
			compiled[string(key)] = s
		}
		out[i] = corpusCall{tool: corpus2Tool{schema: c.Schema, compiled: s}, raw: string(raw)}
	}
	return out
}
