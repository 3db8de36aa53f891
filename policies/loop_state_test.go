package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A State's hash is its canonical JSON without volatile fields: key
// order, spacing and a clock a tool returned do not make it new.
func TestStateHash(t *testing.T) {
	base := StateHash([]byte(`{"a":{"n":1,"at":"x"},"b":[1,2]}`))
	require.Equal(t, base, StateHash([]byte(`{ "b":[1,2], "a":{"at":"x","n":1,"timestamp":"10:00"} }`)))
	require.NotEqual(t, base, StateHash([]byte(`{"a":{"n":2,"at":"x"},"b":[1,2]}`)))
	require.NotEqual(t, base, StateHash([]byte(`{"a":{"n":1,"at":"x"},"b":[2,1]}`)))
	require.NotEmpty(t, StateHash([]byte(`{}`)), "an empty State is a state")
}

// StateLoopAt foresees a state loop without observing anything.
func TestStateLoopAt(t *testing.T) {
	d := NewLoopDetector(64, 3)
	st := func(sig, h string) LoopEvent { return LoopEvent{Signature: sig, StateHash: h} }
	for _, e := range []LoopEvent{st("a", "S"), st("b", "T"), st("a", "S"), st("b", "T")} {
		require.False(t, d.StateLoopAt(e))
		require.Nil(t, d.Observe(e))
	}
	before, _ := json.Marshal(d)
	require.True(t, d.StateLoopAt(st("a", "S")))
	require.False(t, d.StateLoopAt(st("c", "S")), "back by a new call")
	require.False(t, d.StateLoopAt(st("a", "")), "no state")
	after, _ := json.Marshal(d)
	require.Equal(t, before, after, "StateLoopAt changes nothing")
	require.Equal(t, LoopState, d.Observe(st("a", "S")).Kind)
}
