package repair

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The first corpus per kind of mistake, for make bench beside the second
// corpus's categories. A case carries one or two mechanical mistakes
// (and, when it needs judgement, one judgement mistake first); a
// mechanical case counts in the row of each of its mistakes, a judgement
// case in the row of its judgement mistake only.
func TestCorpusRepairByMistake(t *testing.T) {
	cases := GenerateCorpus(300, 1)
	rows := map[string]*corpus2Figures{}
	var kinds []string
	row := func(kind string) *corpus2Figures {
		if rows[kind] == nil {
			rows[kind] = &corpus2Figures{}
			kinds = append(kinds, kind)
		}
		return rows[kind]
	}
	var all corpus2Figures
	for _, c := range cases {
		r := Repair(c.Schema, c.Args, Options{Today: today})
		mistakes := mistakesOf(c.Name)
		require.NotEmpty(t, mistakes, c.Name)
		var f corpus2Figures
		switch {
		case c.NeedsModel && r.Valid:
			f.judgement, f.guessed = 1, 1
		case c.NeedsModel:
			f.judgement, f.reached = 1, 1
		case !r.Valid:
			f.mechanical, f.toModel = 1, 1
		case canon(t, r.Args) != canon(t, c.Want):
			f.mechanical, f.wrong = 1, 1
		default:
			f.mechanical, f.repaired = 1, 1
		}
		all.add(f)
		if c.NeedsModel {
			mistakes = mistakes[:1]
		}
		for _, m := range mistakes {
			row(m).add(f)
		}
	}
	slices.Sort(kinds)
	t.Logf("%-17s %5s %8s %6s %5s %8s %5s %7s %7s", "corpus 1 mistake", "mech", "repaired", "share", "wrong", "to model", "judg", "reached", "guessed")
	judgement := 0
	for _, k := range kinds {
		f := rows[k]
		judgement += f.judgement
		t.Logf("%-17s %5d %8d %5.1f%% %5d %8d %5d %7d %7d", k, f.mechanical, f.repaired, 100*f.share(), f.wrong, f.toModel, f.judgement, f.reached, f.guessed)
	}
	t.Logf("%-17s %5d %8d %5.1f%% %5d %8d %5d %7d %7d", "all (cases)", all.mechanical, all.repaired, 100*all.share(), all.wrong, all.toModel, all.judgement, all.reached, all.guessed)
	require.Equal(t, len(cases), all.mechanical+all.judgement)
	require.Equal(t, all.judgement, judgement, "each judgement case is in one row")
	require.Greater(t, len(kinds), 10, "the table has the corpus's kinds of mistake")
}

// mistakesOf reads the kinds of mistake from a case's name
// ("012/book_flight/as_string:passengers+dropped:class").
func mistakesOf(name string) []string {
	parts := strings.SplitN(name, "/", 3)
	if len(parts) < 3 || parts[2] == "" {
		return nil
	}
	var out []string
	for _, m := range strings.Split(parts[2], "+") {
		kind, _, _ := strings.Cut(m, ":")
		out = append(out, kind)
	}
	return out
}
