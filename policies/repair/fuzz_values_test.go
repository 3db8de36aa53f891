package repair

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// readWritten never panics, reads only bounded valid text, and answers a
// number only with something read around it (a currency, separators, a
// percent sign): plain numbers are parseNumber's.
func FuzzReadWritten(f *testing.F) {
	for _, s := range []string{"$25.99", "€75", "25 USD", "1,250.50", "1 250,50", "1.250,50", "15%", "-$1'250",
		"1,250", "a lot", "USD", "$", "1\u202f250", "\xff1,000", "US$ 1,000,000.00", "1e5%", "$" + strings.Repeat("9", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, ok := readWritten(s)
		if !ok {
			return
		}
		if len(strings.TrimSpace(s)) > maxWrittenLen || !utf8.ValidString(s) {
			t.Fatalf("read %q: beyond the bounds", s)
		}
		if w.currency == "" && !w.percent && !w.grouped {
			t.Fatalf("read %q with nothing read around it", s)
		}
		if w.currency != "" && w.percent {
			t.Fatalf("read %q as both a currency and a percentage", s)
		}
		if n := ratNumber(w.value); !json.Valid([]byte(n)) {
			t.Fatalf("read %q as %q, not JSON", s, n)
		}
		if again, _ := readWritten(s); again.value.Cmp(w.value) != 0 {
			t.Fatalf("read %q twice differently", s)
		}
	})
}

// splitText never panics and its items are bounded, non-empty, trimmed,
// and taken from the text.
func FuzzSplitText(f *testing.F) {
	for _, s := range []string{"a, b, c", "a; b, c", "- a\n- b", `"x, y", z`, "a,,b", "red, green and blue",
		"\xff,a", strings.Repeat("a,", 300), "1,250", "a\r\nb", `"unterminated, x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, sep, ok := splitText(s)
		if !ok {
			return
		}
		if len(items) == 0 || len(items) > maxListItems || sep == "" {
			t.Fatalf("%q: %d items, separator %q", s, len(items), sep)
		}
		total := 0
		for _, it := range items {
			if it == "" || it != strings.TrimSpace(it) || !utf8.ValidString(it) {
				t.Fatalf("%q: item %q", s, it)
			}
			total += len(it)
		}
		if total > len(s) {
			t.Fatalf("%q: items longer than the text", s)
		}
	})
}

// A coercion never panics, and what it answers is of the type wanted.
func FuzzCoerceValue(f *testing.F) {
	for _, s := range []string{`"$25.99"`, `"on"`, `"OFF"`, `1`, `0`, `2`, `"1,250"`, `"a, b"`, `"15%"`, `"10.0"`,
		`["4"]`, `"[1, 2]"`, `{"k": 1}`, `true`, `1e400`, `"\u00ff"`} {
		for _, want := range []string{"integer", "number", "boolean", "string", "array", "object"} {
			f.Add([]byte(s), want)
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte, want string) {
		v, err := decodeJSON(doc)
		if err != nil || !json.Valid(doc) || measure(v).deep || len(doc) > MaxBytes {
			return
		}
		c := coercion{list: func(s string) (coerced, bool) {
			items, sep, ok := splitText(s)
			out := make([]any, len(items))
			for i, it := range items {
				out[i] = it
			}
			return coerced{value: out, strategy: StrategySplitList, why: "split on " + sep}, ok
		}}
		for _, rules := range []RuleSet{RulesNewest, RulesFirst} {
			c.rules = rules
			out, ok := c.convert(v, []string{want})
			if !ok {
				continue
			}
			if !jsonType(out.value, want) || out.why == "" || out.strategy == "" {
				t.Fatalf("%s to %s: %#v (%q, %q)", doc, want, out.value, out.strategy, out.why)
			}
		}
	})
}
