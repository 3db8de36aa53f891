package signals

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Who sent a message and why are a name and a few sentences: over their
// bounds, the message is refused, naming the field and the bound.
func TestCheckAuditBoundsByAndReason(t *testing.T) {
	tests := []struct {
		audit Audit
		want  string
	}{
		{Audit{}, ""},
		{Audit{By: strings.Repeat("a", MaxBy), Reason: strings.Repeat("r", MaxReason)}, ""},
		{Audit{By: strings.Repeat("a", MaxBy+1)}, `message: "by" is 257 bytes, over the 256 bytes it may hold`},
		{Audit{By: strings.Repeat("a", 220<<10)}, `message: "by" is 225280 bytes, over the 256 bytes`},
		{Audit{Reason: strings.Repeat("r", MaxReason+1)}, `message: "reason" is 4097 bytes, over the 4 KiB it may hold`},
	}
	for _, tt := range tests {
		err := CheckAudit(Message, tt.audit)
		if tt.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tt.want)
	}
}
