package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// corpusFigures is how a corpus fares: repaired without a model (and how
// many of those to other arguments than intended), left for a model,
// given up on although no judgement was needed, and judgement cases
// wrongly made valid.
type corpusFigures struct {
	mechanical, repaired, wrong, givenUp int
	judgement, leftForModel, guessed     int
}

func runCorpus(t *testing.T, cases []Case) corpusFigures {
	t.Helper()
	var f corpusFigures
	for _, c := range cases {
		before := canon(t, c.Args)
		r := Repair(c.Schema, c.Args, Options{Today: today})
		require.Equal(t, before, canon(t, c.Args), "%s: input changed", c.Name)
		require.False(t, r.Valid && len(r.Repairs) == 0, "%s: the case is not invalid", c.Name)
		if c.NeedsModel {
			f.judgement++
			if r.Valid {
				f.guessed++
				t.Logf("guessed: %s: %v", c.Name, r.Repairs)
			} else {
				f.leftForModel++
			}
			continue
		}
		f.mechanical++
		switch {
		case !r.Valid:
			f.givenUp++
			t.Logf("given up: %s: %s", c.Name, r.Reason)
		case canon(t, r.Args) != canon(t, c.Want):
			f.repaired++
			f.wrong++
			t.Logf("repaired differently: %s: got %s want %s", c.Name, canon(t, r.Args), canon(t, c.Want))
		default:
			f.repaired++
		}
	}
	return f
}

// The corpus: at least 80% of the calls that need no judgement are
// repaired without a model, and none that needs judgement is guessed.
func TestCorpusRepairShare(t *testing.T) {
	cases := GenerateCorpus(300, 1)
	require.Len(t, cases, 300)
	f := runCorpus(t, cases)
	share := float64(f.repaired) / float64(f.mechanical)
	t.Logf("corpus of %d: %d need no judgement: %d repaired without a model (%.1f%%, %d to other arguments than intended), %d given up; %d need a model: %d left for it, %d guessed",
		len(cases), f.mechanical, f.repaired, 100*share, f.wrong, f.givenUp, f.judgement, f.leftForModel, f.guessed)
	require.GreaterOrEqual(t, f.mechanical, 200)
	require.GreaterOrEqual(t, share, 0.80)
	require.Zero(t, f.guessed, "a call that needs judgement was made valid")
	require.LessOrEqual(t, f.wrong, f.mechanical/50, "at most 2% repaired to other arguments than intended")
	require.Positive(t, f.judgement)
}

// The corpus is the same for the same seed, and differs for another.
func TestCorpusDeterministic(t *testing.T) {
	a, b, c := GenerateCorpus(50, 7), GenerateCorpus(50, 7), GenerateCorpus(50, 8)
	require.Equal(t, canon(t, a), canon(t, b))
	require.NotEqual(t, canon(t, a), canon(t, c))
	require.Empty(t, GenerateCorpus(0, 1))
	require.Empty(t, GenerateCorpus(-3, 1))
}
