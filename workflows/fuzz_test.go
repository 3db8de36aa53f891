package workflows

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/signals"
)

// The carried-state decoder takes whatever a continue-as-new input holds:
// it never panics, stays within its bound, and what it accepts is a run.
func FuzzUncarryRun(f *testing.F) {
	var in AgentInput
	require.NoError(f, carryRun(&in, bigRun(300, "a result that repeats a result that repeats")))
	f.Add(in.ContinuedGzip)
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("not gzip at all"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(`{"nodes": [{"id": 1}], "state": {"n": 9007199254740993}}`))
	_ = zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := uncarryRun(data)
		if err == nil {
			require.NotNil(t, run)
		}
	})
}

// A signal's payload is decoded by the run itself: whatever its encoding
// and bytes, decoding and handling never panic, and a payload that is not
// a message is refused with a reason.
func FuzzSignalPayload(f *testing.F) {
	f.Add(signals.Reply, "json/plain", []byte(`{"text": "ok"}`))
	f.Add(signals.Approve, "json/plain", []byte(`{"call_id": "n3", "decision": "modify", "args": {"a": 1}}`))
	f.Add(signals.Approve, "json/plain", []byte(`{not json`))
	f.Add(signals.Reply, "binary/protobuf", []byte{0xff, 0x00})
	f.Add(signals.Edit, "binary/null", []byte{})
	f.Add(signals.Handoff, "json/plain", []byte(`null`))
	f.Fuzz(func(t *testing.T, name, encoding string, data []byte) {
		handle, ok := newFuzzRunner().signalHandlers(nil)[name]
		if !ok {
			return
		}
		raw := converter.NewRawValue(&commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte(encoding)}, Data: data})
		payload, err := decodeSignal(name, raw)
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		_, err = handle(payload)
		require.Error(t, err, "nothing waits in this run: every message is refused with a reason")
	})
}

func newFuzzRunner() *runner {
	r := &runner{run: &Run{Spec: testSpec(), Progress: Progress{Phase: signals.PhaseRunning}}}
	live(r.life.Start()) // a run that is built, as its handlers see it
	return r
}
