package policies

import (
	"testing"
	"time"
)

func TestNextModel(t *testing.T) {
	providers := []string{"openai", "openai", "azure", "openai"}
	cases := []struct {
		name string
		at   int
		f    ModelFailure
		want int
	}{
		{"unavailable: the next in the list", 0, ModelFailure{}, 1},
		{"unavailable again: the one after", 1, ModelFailure{}, 2},
		{"the last: none left", 3, ModelFailure{}, -1},
		{"refused: another provider", 0, ModelFailure{Fatal: true}, 2},
		{"refused at the only other provider: back to none of it", 2, ModelFailure{Fatal: true}, 3},
		{"refused and no other provider after", 3, ModelFailure{Fatal: true}, -1},
		{"over the window: compaction's business", 0, ModelFailure{ContextExceeded: true}, -1},
		{"no fallbacks", 0, ModelFailure{}, -1},
	}
	for _, tc := range cases {
		ps := providers
		if tc.name == "no fallbacks" {
			ps = providers[:1]
		}
		if got := NextModel(tc.at, ps, tc.f); got != tc.want {
			t.Errorf("%s: NextModel(%d, %v) = %d, want %d", tc.name, tc.at, tc.f, got, tc.want)
		}
	}
}

func TestModelToAsk(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		at      int
		elapsed time.Duration
		want    int
	}{
		{0, time.Hour, 0},
		{2, 10 * time.Second, 2},
		{2, 30 * time.Second, 0},
		{1, 29*time.Second + 999*time.Millisecond, 1},
	}
	for _, tc := range cases {
		if got := ModelToAsk(tc.at, t0, t0.Add(tc.elapsed), 30*time.Second); got != tc.want {
			t.Errorf("ModelToAsk(%d, +%s) = %d, want %d", tc.at, tc.elapsed, got, tc.want)
		}
	}
}

// A model that did not answer is down; one that refused, or a prompt over
// its window, is not, whatever else is said of the failure.
func TestModelDown(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    ModelFailure
		down bool
	}{
		{"unavailable", ModelFailure{Unavailable: true}, true},
		{"a failure that is not unavailable (an error of the activity itself)", ModelFailure{}, false},
		{"a refusal", ModelFailure{Fatal: true}, false},
		{"a refusal said unavailable too", ModelFailure{Fatal: true, Unavailable: true}, false},
		{"over the window", ModelFailure{ContextExceeded: true, Unavailable: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ModelDown(tc.f); got != tc.down {
				t.Fatalf("ModelDown(%+v) = %v, want %v", tc.f, got, tc.down)
			}
		})
	}
}
