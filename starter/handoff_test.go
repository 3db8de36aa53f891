package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestHandoffSendsTheUpdate(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		run   string
		want  string // the update's argument, as JSON
	}{
		{
			name:  "to an agent, with a note and audit",
			flags: []string{"--to", "refunds", "--note", "The customer wants a refund.", "--by", "alice", "--reason", "out of scope"},
			want:  `{"to":"refunds","note":"The customer wants a refund.","by":"alice","reason":"out of scope"}`,
		},
		{
			name:  "the run chooses",
			flags: []string{"--note", "needs someone who can issue refunds"},
			want:  `{"note":"needs someone who can issue refunds"}`,
		},
		{
			name: "nothing but the workflow id",
			want: `{}`,
		},
		{
			name:  "run id",
			flags: []string{"--to", "refunds", "--run-id", "r9"},
			run:   "r9",
			want:  `{"to":"refunds"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, signals.HandoffResult{NodeID: "n12", To: "refunds", HandoffPath: []string{"support", "refunds"}}, nil)
			r := runCLI(t, dial, append([]string{"handoff", "wf-1"}, tt.flags...)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			require.Equal(t, "wf-1", opts.WorkflowID)
			require.Equal(t, tt.run, opts.RunID)
			require.Equal(t, signals.Handoff, opts.UpdateName)
			require.Equal(t, client.WorkflowUpdateStageCompleted, opts.WaitForStage)
			require.Len(t, opts.Args, 1)
			require.JSONEq(t, tt.want, wireJSON(t, opts.Args[0]))
		})
	}
}

func TestHandoffPrintsTheAnswer(t *testing.T) {
	tests := []struct {
		name   string
		answer signals.HandoffResult
		want   string
	}{
		{
			name: "taken, with refusals",
			answer: signals.HandoffResult{
				NodeID: "n12", To: "refunds",
				Refused: []signals.HandoffRefusal{
					{Agent: "billing", Why: "over capacity: 3 of 3 runs"},
					{Agent: "triage", Why: "already in the handoff path triage -> support"},
				},
				HandoffPath: []string{"triage", "support", "refunds"},
			},
			want: "wf-1: handed off to refunds (handoff node n12)\n" +
				"  handoff path: triage -> support -> refunds\n" +
				"  refused:      billing: over capacity: 3 of 3 runs\n" +
				"                triage: already in the handoff path triage -> support\n" +
				"follow it with:\n  unstuck status wf-1\n  unstuck trace wf-1\n",
		},
		{
			name:   "taken, nothing refused",
			answer: signals.HandoffResult{NodeID: "n12", To: "refunds", HandoffPath: []string{"support", "refunds"}},
			want: "wf-1: handed off to refunds (handoff node n12)\n" +
				"  handoff path: support -> refunds\n" +
				"  refused:      none\n" +
				"follow it with:\n  unstuck status wf-1\n  unstuck trace wf-1\n",
		},
		{
			name: "no one took it",
			answer: signals.HandoffResult{
				NodeID:      "n12",
				Refused:     []signals.HandoffRefusal{{Agent: "legal", Why: "no capability\nmatch"}},
				HandoffPath: []string{"support"},
			},
			want: "wf-1: no agent could take the run, so it stopped (handoff node n12)\n" +
				"  handoff path: support\n" +
				"  refused:      legal: no capability match\n" +
				"follow it with:\n  unstuck status wf-1\n  unstuck trace wf-1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, tt.answer, nil)
			r := runCLI(t, dial, "handoff", "wf-1", "--note", "a refund")
			require.Equal(t, exitOK, r.code, r.stderr)
			require.Equal(t, tt.want, r.stdout)
		})
	}
	t.Run("json", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		var opts client.UpdateWorkflowOptions
		answer := signals.HandoffResult{
			NodeID: "n12", To: "refunds",
			Refused:     []signals.HandoffRefusal{{Agent: "billing", Why: "over capacity: 3 of 3 runs"}},
			HandoffPath: []string{"support", "refunds"},
		}
		expectUpdate(t, m, &opts, answer, nil)
		r := runCLI(t, dial, "handoff", "wf-1", "--to", "refunds", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.JSONEq(t, `{"node_id": "n12", "to": "refunds", "refused": [{"agent": "billing", "why": "over capacity: 3 of 3 runs"}], "handoff_path": ["support", "refunds"]}`, r.stdout)
	})
}

func TestHandoffSignal(t *testing.T) {
	m, dial := fakeTemporal(t)
	// No UpdateWorkflow is expected: the mock fails the test if one is made.
	m.On("SignalWorkflow", anyCtx, "wf-1", "r2", signals.Handoff, signals.HandoffRequest{
		To: "refunds", Note: "a refund", Audit: signals.Audit{By: "bob", Reason: "out of scope"},
	}).Return(nil).Once()
	r := runCLI(t, dial, "handoff", "wf-1", "--to", "refunds", "--note", "a refund", "--by", "bob", "--reason", "out of scope", "--signal", "--run-id", "r2")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "handoff signal sent to wf-1 (see `unstuck trace wf-1` for what it did)\n", r.stdout)
}

func TestHandoffFailures(t *testing.T) {
	t.Run("refused by the run", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		var opts client.UpdateWorkflowOptions
		expectUpdate(t, m, &opts, nil, errors.New(`handoff: "legal" is not in support's handoffs [refunds human]`))
		r := runCLI(t, dial, "handoff", "wf-1", "--to", "legal")
		require.Equal(t, exitFailure, r.code)
		require.Equal(t, "unstuck: handoff of wf-1 failed: handoff: \"legal\" is not in support's handoffs [refunds human]\n", r.stderr)
		require.Empty(t, r.stdout)
	})
	t.Run("closed or missing run", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		m.On("UpdateWorkflow", anyCtx, mock.Anything).Return(nil, serviceerror.NewNotFound("workflow execution already completed")).Once()
		expectClosed(m, "wf-1")
		r := runCLI(t, dial, "handoff", "wf-1", "--to", "refunds")
		require.Equal(t, exitFailure, r.code)
		require.Equal(t, "unstuck: handoff of wf-1 failed: run wf-1 completed: it takes no handoff\n", r.stderr)
		require.Empty(t, r.stdout)
	})
	t.Run("signal to a closed run", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		m.On("SignalWorkflow", anyCtx, "wf-1", "", signals.Handoff, mock.Anything).Return(serviceerror.NewNotFound("workflow execution already completed")).Once()
		expectClosed(m, "wf-1")
		r := runCLI(t, dial, "handoff", "wf-1", "--signal")
		require.Equal(t, exitFailure, r.code)
		require.Equal(t, "unstuck: signal handoff to wf-1: run wf-1 completed: it takes no handoff\n", r.stderr)
		require.Empty(t, r.stdout)
	})
}

func TestHandoffUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workflow id", []string{"handoff", "--to", "refunds"}, "unstuck handoff needs a WORKFLOW_ID"},
		{"two workflow ids", []string{"handoff", "wf-1", "wf-2"}, "unstuck handoff takes one WORKFLOW_ID"},
		{"empty --to", []string{"handoff", "wf-1", "--to", ""}, "--to is empty: name an agent of the worker's config, or leave --to out"},
		{"blank --to", []string{"handoff", "wf-1", "--to", "  "}, "--to is empty"},
		{"--to with spaces", []string{"handoff", "wf-1", "--to", " refunds"}, `handoff: "to" is " refunds"`},
		{"--to two words", []string{"handoff", "wf-1", "--to", "refunds billing"}, `handoff: "to" is "refunds billing"`},
		{"--json with --signal", []string{"handoff", "wf-1", "--signal", "--json"}, "--json prints the run's answer, and a --signal has none"},
		{"unknown flag", []string{"handoff", "wf-1", "--too", "refunds"}, "unknown flag: --too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tt.args...)
			require.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			require.Contains(t, r.stderr, tt.want)
			require.Contains(t, r.stderr, "Run 'unstuck handoff --help' for usage.")
			require.Empty(t, r.stdout)
		})
	}
}
