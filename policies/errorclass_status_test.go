package policies

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every default class of docs/contract.md "HTTP tools": no answer, 408, 425, 429
// and 5xx are transient; 400 and 422 invalid_args; 401 and 403 fatal; any
// other 4xx persistent.
func TestClassifyStatusFollowsTheContractDefaults(t *testing.T) {
	cases := []struct {
		status int
		want   Class
	}{
		{StatusTransport, Transient},
		{408, Transient},
		{425, Transient},
		{429, Transient},
		{500, Transient},
		{502, Transient},
		{503, Transient},
		{504, Transient},
		{599, Transient},
		{400, InvalidArgs},
		{422, InvalidArgs},
		{401, Fatal},
		{403, Fatal},
		{402, Persistent},
		{404, Persistent},
		{405, Persistent},
		{409, Persistent},
		{410, Persistent},
		{413, Persistent},
		{418, Persistent},
		{451, Persistent},
		{499, Persistent},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			require.Equal(t, tc.want, ClassifyStatus(tc.status))
		})
	}
}

// Only transient failures are retried; the others are exactly the
// non-retryable error types every tool retry policy lists.
func TestOnlyTransientIsRetryable(t *testing.T) {
	require.True(t, Transient.Retryable())
	for _, c := range []Class{InvalidArgs, Persistent, Fatal} {
		require.False(t, c.Retryable(), c)
	}
	require.ElementsMatch(t, []string{"invalid_args", "persistent", "fatal"}, NonRetryableClasses)
}
