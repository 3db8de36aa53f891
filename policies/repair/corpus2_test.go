package repair

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// corpus2Repair is what the workflow does with a call's arguments text
// today: it decodes the text as JSON (numbers as json.Number), an object
// goes through Repair, anything else is left for the model. When the
// whole-argument repairs (issue 14 item 4) give an entry point that takes
// the text, this is the one place to call it instead.
func corpus2Repair(t corpus2Tool, raw string, opts Options) Result {
	v, err := decodeJSON([]byte(raw))
	args, ok := v.(map[string]any)
	if err != nil || !ok {
		// As the workflow does (prepareCall): text that is not a JSON
		// object is read by RepairText first, when it can be.
		text := RepairText(raw)
		if text.JSON == nil {
			return Result{Reason: "the arguments are not a JSON object: " + text.Reason}
		}
		v, err = decodeJSON(text.JSON)
		if args, ok = v.(map[string]any); err != nil || !ok {
			return Result{Reason: "RepairText answered no JSON object"}
		}
	}
	return Repair(t.schema, args, opts)
}

// corpus2Figures is how one category (or the whole corpus) fares. Of the
// mechanical cases: repaired to the wanted arguments, repaired to other
// ones (wrong), left for the model. Of the judgement cases: reached the
// model, or made valid by a rule (guessed, also wrong).
type corpus2Figures struct {
	mechanical, repaired, wrong, toModel int
	judgement, reached, guessed          int
}

func (f *corpus2Figures) add(g corpus2Figures) {
	f.mechanical += g.mechanical
	f.repaired += g.repaired
	f.wrong += g.wrong
	f.toModel += g.toModel
	f.judgement += g.judgement
	f.reached += g.reached
	f.guessed += g.guessed
}

// share is the part of the mechanical cases repaired as wanted.
func (f corpus2Figures) share() float64 {
	if f.mechanical == 0 {
		return 0
	}
	return float64(f.repaired) / float64(f.mechanical)
}

// wrongRepairs is every repair that should not have been made: to other
// arguments than wanted, or on a case that needs judgement.
func (f corpus2Figures) wrongRepairs() int { return f.wrong + f.guessed }

// runCorpus2 repairs every case and answers the figures per category,
// logging each wrong repair.
func runCorpus2(t *testing.T, c corpus2) map[string]corpus2Figures {
	t.Helper()
	out := map[string]corpus2Figures{}
	for i, k := range c.cases {
		name := k.name(i)
		tool, ok := c.tools[k.Tool]
		require.True(t, ok, "%s: no tool %s", name, k.Tool)
		r := corpus2Repair(tool, k.Raw, Options{Today: c.now, Compiled: tool.compiled})
		f := out[k.Category]
		switch {
		case k.Judgement && r.Valid:
			f.judgement++
			f.guessed++
			t.Logf("guessed: %s: %s -> %s (%s)", name, k.Raw, canon(t, r.Args), k.Note)
		case k.Judgement:
			f.judgement++
			f.reached++
		case !r.Valid:
			f.mechanical++
			f.toModel++ // not logged: on main most of the corpus goes here
		case !sameJSON(t, r.Args, wantOf(t, name, k)):
			f.mechanical++
			f.wrong++
			t.Logf("repaired wrongly: %s: got %s want %s (%s)", name, canon(t, r.Args), k.Want, k.Note)
		default:
			f.mechanical++
			f.repaired++
		}
		out[k.Category] = f
	}
	return out
}

// wantOf decodes a case's wanted arguments.
func wantOf(t testing.TB, name string, k corpus2Case) map[string]any {
	t.Helper()
	v, err := decodeJSON([]byte(k.Want))
	require.NoError(t, err, "%s: want", name)
	m, ok := v.(map[string]any)
	require.True(t, ok, "%s: want is an object", name)
	return m
}

// sameJSON compares two JSON values by meaning: numbers by value (25.990
// is 25.99), objects whatever their key order.
func sameJSON(t testing.TB, a, b any) bool {
	t.Helper()
	return reflect.DeepEqual(plainJSON(t, a), plainJSON(t, b))
}

func plainJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// The second corpus's figures, per category, for make bench, and the
// goals of issue 14, met and enforced (corpus2Goals): >= 95% of
// mechanical cases repaired without a model, no wrong repair, every
// judgement case reaching the model; and that the figures add up.
func TestCorpus2RepairShare(t *testing.T) {
	c := loadCorpus2(t)
	per := runCorpus2(t, c)
	var all corpus2Figures
	t.Logf("%-15s %5s %8s %6s %5s %8s %5s %7s %7s", "category", "mech", "repaired", "share", "wrong", "to model", "judg", "reached", "guessed")
	for _, cat := range corpus2Categories {
		f := per[cat]
		all.add(f)
		t.Logf("%-15s %5d %8d %5.1f%% %5d %8d %5d %7d %7d", cat, f.mechanical, f.repaired, 100*f.share(), f.wrong, f.toModel, f.judgement, f.reached, f.guessed)
	}
	t.Logf("%-15s %5d %8d %5.1f%% %5d %8d %5d %7d %7d", "all", all.mechanical, all.repaired, 100*all.share(), all.wrong, all.toModel, all.judgement, all.reached, all.guessed)
	t.Logf("corpus 2 of %d: %d mechanical, %d repaired without a model (%.1f%%, goal >= 95%%); %d wrong repairs (goal 0); %d of %d judgement cases reached the model (goal all)",
		len(c.cases), all.mechanical, all.repaired, 100*all.share(), all.wrongRepairs(), all.reached, all.judgement)
	require.Equal(t, len(c.cases), all.mechanical+all.judgement, "every case is in a category of the table")
	require.Equal(t, all.mechanical, all.repaired+all.wrong+all.toModel)
	require.Equal(t, all.judgement, all.reached+all.guessed)
	require.LessOrEqual(t, all.wrongRepairs(), corpus2WrongOnMain, "more wrong repairs than main had when the corpus was written")
	corpus2Goals(t, all, true)
}

// corpus2WrongOnMain is the number of wrong repairs left on main: 11 when
// the corpus was written; 6 with the value, whole-argument and date rules
// of issue 14; 0 since free text is split and wrapped only when certain
// (lists.go), an affix makes another enum word (enum.go), and "20%" for a
// fraction field is known to be 0.2 (the case was a judgement by mistake).
// It stays 0: the goals are enforced.
const corpus2WrongOnMain = 0

// corpus2Goals are issue 14's goals on the second corpus. With enforce
// false it only reports whether they are met (for a corpus being
// extended); TestCorpus2RepairShare enforces them.
func corpus2Goals(t *testing.T, all corpus2Figures, enforce bool) {
	t.Helper()
	met := all.share() >= 0.95 && all.wrongRepairs() == 0 && all.reached == all.judgement
	t.Logf("issue 14 goals met on corpus 2: %v (enforced: %v)", met, enforce)
	if enforce {
		require.GreaterOrEqual(t, all.share(), 0.95, "share of mechanical cases repaired without a model")
		require.Zero(t, all.wrongRepairs(), "wrong repairs")
		require.Equal(t, all.judgement, all.reached, "judgement cases that reached the model")
	}
}
