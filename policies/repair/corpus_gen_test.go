package repair

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// Case is one invalid tool call of a corpus: the tool's schema, the
// arguments a model might send, whether mending them needs judgement
// (NeedsModel: a value only the conversation holds), and, when it does
// not, Want: the arguments a correct repair gives. A case's Schema, Args
// and Want are its own; a repair must not change them.
type Case struct {
	Name       string
	Schema     map[string]any
	Args       map[string]any
	NeedsModel bool
	Want       map[string]any
}

// GenerateCorpus makes n invalid tool calls, deterministically from seed:
// valid calls of five tools (flights, calendar, thermostat, shop search,
// bank transfer) with one or two mistakes each, of the kinds models make
// and the strategies mend (numbers as strings, other date layouts, enum
// spellings, out-of-range numbers, missing defaults, overlong strings,
// stray or misspelt properties), and about one in six with a mistake that
// needs judgement (a missing value with no default, a pattern, an
// ambiguous or relative date, an unrelated enum value, a fraction for an
// integer).
func GenerateCorpus(n int, seed uint64) []Case {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Case, 0, max(n, 0))
	for i := range n {
		t := corpusTools[r.IntN(len(corpusTools))]
		b := &builder{r: r, args: t.args(r)}
		b.want = deepCopy(b.args).(map[string]any)
		var names []string
		if r.IntN(6) == 0 {
			names = append(names, b.apply(t.judgement))
			b.needsModel = true
		}
		for k := 1 + r.IntN(2); k > 0; k-- {
			if name := b.apply(t.mechanical); name != "" {
				names = append(names, name)
			}
		}
		c := Case{
			Name:       fmt.Sprintf("%03d/%s/%s", i, t.name, strings.Join(names, "+")),
			Schema:     t.schema(),
			Args:       b.args,
			NeedsModel: b.needsModel,
		}
		if !b.needsModel {
			c.Want = b.want
		}
		out = append(out, c)
	}
	return out
}

// builder holds a case being made: the arguments, the arguments a
// correct repair gives, and the fields already changed (one mistake per
// field, so that the intended repair is well defined).
type builder struct {
	r          *rand.Rand
	args, want map[string]any
	used       []string
	needsModel bool
}

// mutation makes one mistake in a field, or answers false when the
// arguments do not allow it (the field is absent, say).
type mutation struct {
	name  string
	field string
	do    func(b *builder, f string) bool
}

// apply makes one of the mutations that can be made, tried from a random
// start, and answers its name ("" when none could be).
func (b *builder) apply(ms []mutation) string {
	start := b.r.IntN(len(ms))
	for k := range ms {
		m := ms[(start+k)%len(ms)]
		if contains(b.used, m.field) || !m.do(b, m.field) {
			continue
		}
		b.used = append(b.used, m.field)
		return m.name + ":" + m.field
	}
	return ""
}

func (b *builder) pick(list []string) string { return list[b.r.IntN(len(list))] }

// corpusTool is a tool of the corpus: its schema, a generator of valid
// arguments, and the mistakes its calls get.
type corpusTool struct {
	name       string
	schema     func() map[string]any
	args       func(r *rand.Rand) map[string]any
	mechanical []mutation
	judgement  []mutation
}

var corpusTools = []corpusTool{flightTool, eventTool, thermostatTool, searchTool, transferTool}

// mustJSON decodes a schema literal (numbers as json.Number).
func mustJSON(s string) map[string]any {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.(map[string]any)
}

func num(s string) json.Number { return json.Number(s) }

func intNum(i int) json.Number { return json.Number(fmt.Sprint(i)) }

// randomDate is a date in 2025 (day up to 28, valid in every month).
func randomDate(r *rand.Rand) (y, m, d int) { return 2025, 1 + r.IntN(12), 1 + r.IntN(28) }

func isoDate(y, m, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

// otherDateLayout writes a date as people do; US month/day only when the
// day cannot be a month.
func otherDateLayout(r *rand.Rand, y, m, d int) string {
	full := monthNames[m-1]
	layouts := []string{
		fmt.Sprintf("%s %d, %d", full[:3], d, y),
		fmt.Sprintf("%s %d %d", full, d, y),
		fmt.Sprintf("%d %s %d", d, full[:3], y),
		fmt.Sprintf("%d/%02d/%02d", y, m, d),
		fmt.Sprintf("%02d.%02d.%d", d, m, y),
	}
	if d > 12 {
		layouts = append(layouts, fmt.Sprintf("%02d/%02d/%d", m, d, y))
	}
	return layouts[r.IntN(len(layouts))]
}

// parseISODate reads back a date the generator wrote.
func parseISODate(s string) (y, m, d int, ok bool) {
	_, err := fmt.Sscanf(s, "%4d-%2d-%2d", &y, &m, &d)
	return y, m, d, err == nil
}

// Generic mistakes, by the kind of field.

// asString writes a number or boolean as a string.
func asString(b *builder, f string) bool {
	switch v := b.args[f].(type) {
	case json.Number:
		b.args[f] = string(v)
	case bool:
		b.args[f] = b.pick(map[bool][]string{true: {"true", "yes", "True", "YES"}, false: {"false", "no", "False", "NO"}}[v])
	default:
		return false
	}
	return true
}

// asNumber writes a numeric string as a number.
func asNumber(b *builder, f string) bool {
	s, ok := b.args[f].(string)
	if !ok {
		return false
	}
	if _, ok := parseNumber(s); !ok || strings.HasPrefix(s, "0") || strings.HasPrefix(s, "+") {
		return false
	}
	b.args[f] = json.Number(s)
	return true
}

// unwrapped gives the single item of an array as itself.
func unwrapped(b *builder, f string) bool {
	a, ok := b.args[f].([]any)
	if !ok || len(a) != 1 {
		return false
	}
	b.args[f] = a[0]
	return true
}

// dateLayout writes a date in another layout.
func dateLayout(b *builder, f string) bool {
	s, ok := b.args[f].(string)
	y, m, d, isDate := parseISODate(s)
	if !ok || !isDate || len(s) != 10 {
		return false
	}
	b.args[f] = otherDateLayout(b.r, y, m, d)
	return true
}

// dateAsDateTime gives a date-time where a date is wanted.
func dateAsDateTime(b *builder, f string) bool {
	s, ok := b.args[f].(string)
	if !ok || len(s) != 10 {
		return false
	}
	b.args[f] = fmt.Sprintf("%sT%02d:%02d:00", s, b.r.IntN(24), 15*b.r.IntN(4))
	if b.r.IntN(2) == 0 {
		b.args[f] = b.args[f].(string) + "Z"
	}
	return true
}

// dateTimeLayout drops a date-time's zone or writes it as people do.
func dateTimeLayout(b *builder, f string) bool {
	s, ok := b.args[f].(string)
	if !ok || len(s) != 20 || !strings.HasSuffix(s, "Z") {
		return false
	}
	var y, m, d, hh, mi int
	if _, err := fmt.Sscanf(s, "%4d-%2d-%2dT%2d:%2d", &y, &m, &d, &hh, &mi); err != nil {
		return false
	}
	h12, ampm := hh%12, "AM"
	if h12 == 0 {
		h12 = 12
	}
	if hh >= 12 {
		ampm = "PM"
	}
	b.args[f] = []string{
		s[:19],
		s[:10] + " " + s[11:16],
		fmt.Sprintf("%s %d, %d %d:%02d %s", monthNames[m-1][:3], d, y, h12, mi, ampm),
	}[b.r.IntN(3)]
	return true
}

// enumSpelling writes an enum value another way: case, separators, a
// unit word, a typo.
func enumSpelling(unit string) func(b *builder, f string) bool {
	return func(b *builder, f string) bool {
		s, ok := b.args[f].(string)
		if !ok || s == "" {
			return false
		}
		words := strings.Split(s, "_")
		var variants []string
		variants = append(variants,
			strings.ToUpper(s),
			titleWords(words, " "),
			strings.Join(words, " "),
			strings.Join(words, "-"),
			strings.Join(words, " ")+" "+unit,
		)
		if len(s) >= 6 {
			i := 1 + b.r.IntN(len(s)-3)
			variants = append(variants, s[:i]+s[i+1:], s[:i]+s[i+1:i+2]+s[i:i+1]+s[i+2:])
		}
		for k := 0; k < 8; k++ {
			if v := b.pick(variants); v != s {
				b.args[f] = v
				return true
			}
		}
		return false
	}
}

func titleWords(words []string, sep string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" {
			out[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(out, sep)
}

// outOfRange puts a number below its minimum or above its maximum; the
// repair gives the bound (lo or hi).
func outOfRange(lo, hi json.Number, below, above []string) func(b *builder, f string) bool {
	return func(b *builder, f string) bool {
		if _, ok := b.args[f].(json.Number); !ok {
			return false
		}
		if len(below) > 0 && b.r.IntN(2) == 0 {
			b.args[f], b.want[f] = json.Number(b.pick(below)), lo
		} else {
			b.args[f], b.want[f] = json.Number(b.pick(above)), hi
		}
		return true
	}
}

// dropped leaves out a property whose default the repair fills in.
func dropped(def any) func(b *builder, f string) bool {
	return func(b *builder, f string) bool {
		if _, ok := b.args[f]; !ok {
			return false
		}
		delete(b.args, f)
		b.want[f] = def
		return true
	}
}

// tooLong pads a string with space, or runs it on past its maximum length.
func tooLong(maxLen int) func(b *builder, f string) bool {
	return func(b *builder, f string) bool {
		s, ok := b.args[f].(string)
		if !ok {
			return false
		}
		if b.r.IntN(2) == 0 {
			b.args[f] = strings.Repeat(" ", maxLen) + s + "  "
			return true
		}
		long := s + " about the quarterly roadmap, the hiring plan and the budget for next year"
		b.args[f] = long
		cut := string([]rune(long)[:maxLen])
		if t := strings.TrimRight(cut, " "); t != "" {
			cut = t
		}
		if utf8.RuneCountInString(long) <= maxLen {
			return false
		}
		b.want[f] = cut
		return true
	}
}

// extra adds a property the schema forbids.
func extra(b *builder, _ string) bool {
	name := b.pick([]string{"notes", "user_id", "confirm", "debug", "source"})
	if _, ok := b.args[name]; ok {
		return false
	}
	b.args[name] = b.pick([]string{"please hurry", "u-1234", "true", "yes"})
	return true
}

// misspelt moves a property to a name a model might write for it:
// camelCase, or a letter dropped.
func misspelt(b *builder, f string) bool {
	v, ok := b.args[f]
	if !ok {
		return false
	}
	var name string
	if i := strings.IndexByte(f, '_'); i > 0 && b.r.IntN(2) == 0 {
		words := strings.Split(f, "_")
		name = words[0] + titleWords(words[1:], "")
	} else if len(f) >= 6 {
		i := 1 + b.r.IntN(len(f)-2)
		name = f[:i] + f[i+1:]
	} else {
		return false
	}
	delete(b.args, f)
	b.args[name] = v
	return true
}

// Mistakes that need judgement.

// missing leaves out a property that has no default.
func missing(b *builder, f string) bool {
	if _, ok := b.args[f]; !ok {
		return false
	}
	delete(b.args, f)
	return true
}

// setTo puts one of some values that cannot be mended.
func setTo(values ...any) func(b *builder, f string) bool {
	return func(b *builder, f string) bool {
		if _, ok := b.args[f]; !ok {
			return false
		}
		b.args[f] = values[b.r.IntN(len(values))]
		return true
	}
}

// ambiguousDate writes a date whose day could be its month.
func ambiguousDate(b *builder, f string) bool {
	if _, ok := b.args[f].(string); !ok {
		return false
	}
	m := 1 + b.r.IntN(12)
	d := 1 + b.r.IntN(12)
	if d == m {
		d = m%12 + 1
	}
	b.args[f] = fmt.Sprintf("%02d/%02d/2025", m, d)
	return true
}

var relativeDates = setTo("next Friday", "tomorrow", "in two weeks", "end of month")
