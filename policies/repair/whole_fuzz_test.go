package repair

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// RepairText never panics, answers the same twice, and answers either a
// JSON object (with the repairs that made it) or a reason; a text that
// already is a JSON object, or is not valid UTF-8, is never rewritten.
func FuzzRepairText(f *testing.F) {
	for _, s := range []string{
		`"{\"a\": 1}"`, `{'a': True, 'b': [1, 2,], /* c */ 'd': None}`, "{\"a\": \"x\ny\"} // c", `"{'a': 1}"`,
		`'{"a": 1}'`, `{"a": 1`, `{a: 1}`, `[1, 2,]`, `"\"{}\""`, `{"a": 1}`, "{'\xff': 1}", `{'a': '\'\"\\'}`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := RepairText(text)
		if b, _ := json.Marshal(r); string(b) != string(mustJSONText(t, RepairText(text))) {
			t.Fatalf("not deterministic for %q", text)
		}
		if r.JSON == nil {
			if r.Reason == "" || len(r.Repairs) > 0 {
				t.Fatalf("refused without a reason, or with repairs: %+v", r)
			}
			return
		}
		v, err := decodeJSON(r.JSON)
		if _, isObj := v.(map[string]any); err != nil || !isObj {
			t.Fatalf("%q gave %s, not a JSON object", text, r.JSON)
		}
		if len(r.Repairs) == 0 || r.Reason != "" {
			t.Fatalf("repaired without a repair, or with a reason: %+v", r)
		}
		if !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 %q rewritten", text)
		}
		if v, err := decodeJSON([]byte(text)); err == nil && json.Valid([]byte(text)) {
			if _, isObj := v.(map[string]any); isObj {
				t.Fatalf("a JSON object %q was rewritten", text)
			}
		}
	})
}

func mustJSONText(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resolveRelative never panics, and what it answers is a date (or
// date-time) within maxRelativeDays of the day it counts from.
func FuzzResolveRelative(f *testing.F) {
	for _, s := range []string{"tomorrow", "in 3 days", "2 weeks ago", "next Friday", "this coming Monday", "tomorrow at 3pm",
		"in 99999 weeks", "next Friday 10:00 +02:00", "Oct 26", "yesterday 25:00"} {
		f.Add(s, "date", int64(0))
		f.Add(s, "date-time", int64(86400*3))
	}
	base := today.Unix()
	f.Fuzz(func(t *testing.T, s, format string, offset int64) {
		now := time.Unix(base+offset%(86400*366*50), 0).UTC()
		out, why, ok := resolveRelative(s, format, now)
		if !ok {
			return
		}
		if why == "" || !strings.Contains(why, "resolved against") {
			t.Fatalf("no reason for %q", s)
		}
		layout := "2006-01-02"
		if format == "date-time" {
			layout = time.RFC3339Nano
		}
		got, err := time.Parse(layout, out)
		if err != nil {
			t.Fatalf("%q gave %q, not a %s: %v", s, out, format, err)
		}
		day := time.Date(got.Year(), got.Month(), got.Day(), 0, 0, 0, 0, time.UTC)
		from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
		if d := day.Sub(from).Hours() / 24; d > maxRelativeDays || d < -maxRelativeDays {
			t.Fatalf("%q on %s gave %s, %v days away", s, from.Format("2006-01-02"), out, d)
		}
	})
}
