package policies

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestApprovalAsks(t *testing.T) {
	when := config.Approval{When: "args.amount > 1000"}
	broken := errors.New("invalid operation: <nil> > int")
	for _, tc := range []struct {
		name     string
		approval config.Approval
		held     bool
		err      error
		want     ApprovalDecision
	}{
		{"never", config.ApprovalNever, false, nil, ApprovalDecision{}},
		{"never whatever a condition would say", config.ApprovalNever, true, nil, ApprovalDecision{}},
		{"always", config.ApprovalAlways, false, nil, ApprovalDecision{Ask: true}},
		{"unset is never", config.Approval{}, false, nil, ApprovalDecision{}},
		{"condition false: runs at once", when, false, nil, ApprovalDecision{Note: "approval not asked: args.amount > 1000 is false"}},
		{"condition true: waits", when, true, nil, ApprovalDecision{Ask: true, Note: "approval asked: args.amount > 1000 is true"}},
		{"condition not evaluated: waits", when, false, broken,
			ApprovalDecision{Ask: true, Note: "approval asked: args.amount > 1000 could not be evaluated (invalid operation: <nil> > int), so a person decides"}},
		{"over its cost bound: waits", when, false, ErrOverBudget, ApprovalDecision{Ask: true,
			Note: "approval asked: args.amount > 1000 could not be evaluated (" + ErrOverBudget.Error() + "), so a person decides"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ApprovalAsks(tc.approval, tc.held, tc.err))
		})
	}
}
