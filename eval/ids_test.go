package eval

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every workflow id an eval starts is its own, whatever the cases are
// named: a case named like another's judge run (judge-foo beside foo),
// like another's repeat (foo-1 beside foo) or like a recording
// (foo-recorded) gets ids no other run of the eval has, so under
// --concurrency no run reads another's result.
func TestEvalWorkflowIDsAreUnique(t *testing.T) {
	const stamp = "20261207-061500-a1b2c3"
	names := []string{"foo", "judge-foo", "foo-1", "foo-1-1", "recorded", "foo-recorded", "judge-foo-recorded", "1", "judge", "foo-judge", "foo-1-judge"}
	owner := map[string]string{}
	claim := func(id, what string) {
		t.Helper()
		other, taken := owner[id]
		require.False(t, taken, "%s and %s both get the workflow id %s", other, what, id)
		owner[id] = what
	}
	for _, name := range names {
		claim(RecordedJudgeID(name, stamp), "the judge of "+name+"'s recording")
		for i := 1; i <= 3; i++ {
			claim(RunID(name, i, stamp), "run "+name+" #"+string(rune('0'+i)))
			claim(JudgeID(name, i, stamp), "the judge of run "+name+" #"+string(rune('0'+i)))
		}
	}
}
