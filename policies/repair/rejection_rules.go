package repair

import (
	"regexp"
	"strings"
)

// A rule is one way messages phrase a problem. Its pattern is written
// with placeholders, each one capture: {F} a parameter name, quoted or
// not; {N} a number; {L} a list of values; {T} a type word; {R} the rest
// of the line. build turns the captures, in order, into hints.
type rule struct {
	re    *regexp.Regexp
	slots []slot
	build func(v []string) []Hint
	// words are lowercase literals one of which every match holds; a
	// message without any is not searched (most are not).
	words []string
}

// A slot is a placeholder: its name, pattern and number of groups. {F}
// holds four groups (three quotings and a bare name); the others one.
type slot struct {
	name, pattern string
	groups        int
}

// The repetitions are unbounded on purpose: RE2 matches in linear time
// either way, but a counted one ({1,128}) is compiled into that many
// states, which made long messages slow. Lengths are checked after.
var slots = []slot{
	{"{F}", `(?:'([^'\n]+)'|"([^"\n]+)"|` + "`([^`\\n]+)`" + `|([A-Za-z_$][\w.$\[\]/-]*))`, 4},
	{"{N}", `([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)`, 1},
	{"{L}", `(\[[^\]\n]*\]|\([^)\n]*\)|\{[^}\n]*\}|[^.;\n]+)`, 1},
	{"{T}", `(integer|int|number|float|double|decimal|string|str|text|boolean|bool|array|list|object|dict|map)\b`, 1},
	{"{S}", `(positive|negative|non-?negative|non-?positive)\b`, 1},
	{"{R}", `([^\n]+)`, 1},
}

// maxFieldLen and maxListLen bound what a hint carries.
const (
	maxFieldLen = 128
	maxListLen  = 1000
)

// newRule compiles a case-insensitive pattern with placeholders.
func newRule(words []string, pattern string, build func(v []string) []Hint) rule {
	var used []slot
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		matched := false
		for _, sl := range slots {
			if strings.HasPrefix(pattern[i:], sl.name) {
				used = append(used, sl)
				b.WriteString(sl.pattern)
				i += len(sl.name) - 1
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(pattern[i])
		}
	}
	return rule{re: regexp.MustCompile(`(?i)` + b.String()), slots: used, build: build, words: words}
}

// values reads the captures of a match, one string per placeholder. A
// bare (unquoted) name that is a common word is no name: "the value must
// be >= 1" names no parameter.
func (r rule) values(s string, m []int) []string {
	out := make([]string, len(r.slots))
	g := 1
	for i, sl := range r.slots {
		for k := range sl.groups {
			if a, b := m[2*(g+k)], m[2*(g+k)+1]; a >= 0 && out[i] == "" {
				out[i] = s[a:b]
				if sl.name == "{F}" && k == 3 {
					out[i] = cleanField(out[i])
				}
				if sl.name == "{F}" && len(out[i]) > maxFieldLen || len(out[i]) > maxListLen {
					return nil // too long to be what it stands for
				}
				if _, ok := parseNumber(out[i]); sl.name == "{N}" && !ok {
					return nil // beyond the numbers read exactly
				}
			}
		}
		g += sl.groups
	}
	return out
}

// Prefixes that may stand between a phrase and the parameter name.
const named = `(?:(?:the\s+)?(?:parameter|field|argument|property|param|key)\s+)?`

// Words for bounds, longest first (the first alternative that fits wins).
const (
	geWords = `>=|=>|≥|at\s+least|greater\s+than\s+or\s+equal\s+to|no\s+less\s+than|not\s+be\s+less\s+than`
	leWords = `<=|=<|≤|at\s+most|less\s+than\s+or\s+equal\s+to|no\s+more\s+than|not\s+be\s+(?:greater|more)\s+than|not\s+exceed`
	gtWords = `>|greater\s+than|more\s+than|above`
	ltWords = `<|less\s+than|fewer\s+than|below`
)

func w(words ...string) []string { return words }

func one(h Hint) []Hint { return []Hint{h} }

func boundHint(field, kind, n string, exclusive bool) Hint {
	return Hint{Field: field, Kind: kind, Bound: strings.TrimPrefix(n, "+"), Exclusive: exclusive}
}

var rules = []rule{
	// dates
	newRule(w("date"), `invalid\s+date(?:\s*format)?\s+(?:for|in|of|on)\s+`+named+`{F}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintDate})
	}),
	newRule(w("date"), `{F}\s+(?:has|is|contains)\s+(?:an?\s+)?invalid\s+date`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintDate})
	}),
	newRule(w("date"), `{F}\s*:\s*invalid\s+date`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintDate})
	}),
	// missing parameters
	newRule(w("missing"), `missing\s+(?:required\s+)?(?:parameter|field|argument|property|param|key|value)s?\s*(?:for\s+)?:?\s*{F}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintMissing})
	}),
	newRule(w("required", "missing"), `{F}\s+is\s+(?:a\s+)?(?:required|missing)`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintMissing})
	}),
	// bounds
	newRule(w("must", "should"), `{F}\s+(?:must|should)\s+(?:be\s+)?(?:`+geWords+`)\s*{N}`, func(v []string) []Hint {
		return one(boundHint(v[0], HintMin, v[1], false))
	}),
	newRule(w("must", "should"), `{F}\s+(?:must|should)\s+(?:be\s+)?(?:`+leWords+`)\s*{N}`, func(v []string) []Hint {
		return one(boundHint(v[0], HintMax, v[1], false))
	}),
	newRule(w("must", "should"), `{F}\s+(?:must|should)\s+(?:be\s+)?(?:`+gtWords+`)\s*{N}`, func(v []string) []Hint {
		return one(boundHint(v[0], HintMin, v[1], true))
	}),
	newRule(w("must", "should"), `{F}\s+(?:must|should)\s+(?:be\s+)?(?:`+ltWords+`)\s*{N}`, func(v []string) []Hint {
		return one(boundHint(v[0], HintMax, v[1], true))
	}),
	newRule(w("between", "range"), `{F}\s+(?:must|should)\s+be\s+(?:between\s+{N}\s+and|in\s+(?:the\s+)?range\s*\[?\s*{N}\s*(?:,|-|\.\.|to))\s*{N}`, func(v []string) []Hint {
		lo := v[1]
		if lo == "" {
			lo = v[2]
		}
		return []Hint{boundHint(v[0], HintMin, lo, false), boundHint(v[0], HintMax, v[3], false)}
	}),
	newRule(w("positive", "negative"), `{F}\s+(?:must|should)\s+be\s+(?:an?\s+)?{S}`, func(v []string) []Hint {
		switch strings.ReplaceAll(strings.ToLower(v[1]), "-", "") {
		case "positive":
			return one(boundHint(v[0], HintMin, "0", true))
		case "negative":
			return one(boundHint(v[0], HintMax, "0", true))
		case "nonnegative":
			return one(boundHint(v[0], HintMin, "0", false))
		default:
			return one(boundHint(v[0], HintMax, "0", false))
		}
	}),
	// allowed values
	newRule(w("one"), `{F}\s+(?:must|should)\s+be\s+one\s+of\s*:?\s*{L}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintEnum, Values: splitList(v[1])})
	}),
	newRule(w("one"), `(?:must|should)\s+be\s+one\s+of\s*:?\s*{L}`, func(v []string) []Hint {
		return one(Hint{Kind: HintEnum, Values: splitList(v[0])})
	}),
	newRule(w("invalid"), `invalid\s+(?:value|choice|option)\s+(?:for\s+)?`+named+`{F}\W{0,3}\s*(?:expected|allowed(?:\s+values)?|valid\s+values|choices|must\s+be)\s*(?:are|is)?\s*:?\s*(?:one\s+of\s*:?\s*)?{L}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintEnum, Values: splitList(v[1])})
	}),
	// types
	newRule(w("type"), `{F}\s+(?:has|is\s+of|is)\s+(?:an?\s+)?(?:invalid|wrong|incorrect)\s+type`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintType})
	}),
	newRule(w("type"), `(?:invalid|wrong|incorrect)\s+type\s+(?:for|of)\s+`+named+`{F}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintType})
	}),
	newRule(w("expected"), `expected\s+(?:an?\s+)?{T}\s+(?:for|in|at)\s+`+named+`{F}`, func(v []string) []Hint {
		return one(Hint{Field: v[1], Kind: HintType, Values: []string{typeName(v[0])}})
	}),
	newRule(w("must", "should"), `{F}\s+(?:must|should)\s+be\s+(?:an?\s+)?{T}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintType, Values: []string{typeName(v[1])}})
	}),
	newRule(w("expected"), `{F}\s*:\s*expected\s+(?:an?\s+)?{T}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintType, Values: []string{typeName(v[1])}})
	}),
	// patterns
	newRule(w("match"), `{F}\s+(?:does\s+not|doesn't|must|should)\s+match\s+(?:the\s+)?(?:required\s+)?(?:pattern|regex|regular\s+expression)\s*:?\s*{R}`, func(v []string) []Hint {
		return one(Hint{Field: v[0], Kind: HintPattern, Values: []string{cleanPattern(v[1])}})
	}),
}

// cleanPattern takes the pattern out of the rest of a message line.
func cleanPattern(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range []string{`'`, `"`, "`", "/"} {
		if len(s) >= 2 && strings.HasPrefix(s, q) {
			if end := strings.LastIndex(s, q); end > 0 {
				return s[1:end]
			}
		}
	}
	return strings.TrimRight(s, ".")
}
