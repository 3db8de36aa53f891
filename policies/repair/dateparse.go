package repair

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Why hand-written, not github.com/markusmobius/go-dateparser (v1.4.7,
// tried): it reads "20241026" as 4102-02-02 and "2024-13-01" as January
// 13 (wrong repairs that pass the schema), takes "10/26/24" and a bare
// "1234567890" (a Unix time) as dates, and does not read "next Friday";
// it calls time.Now (two-digit years ignore CurrentTime), iterates maps
// and fills global caches (sync.Map, sync.OnceValues), so workflowcheck
// refuses it in workflow code; it is 9 MB of source (176k lines), adds
// about 9 MB to a binary, and takes 0.1 to 9 ms a date. What a repair
// needs is small: the layouts below, refusing what is ambiguous.

// when is a calendar date, with a time of day when one was written.
type when struct {
	y, m, d    int
	hasTime    bool
	hh, mi, ss int
	frac       string // ".123", or ""
	zone       string // "Z" or "+02:00"; "" when none was written
	relative   bool   // the day was written relative to today ("tomorrow")
	// nextYear: no year was written and this year's day had passed, so
	// the year taken is a later one (see yearCertain).
	nextYear bool
}

// maxDateLen bounds the text read as a date: dates are short.
const maxDateLen = 64

// isoish is an ISO 8601 date with an optional time, leniently spaced and
// padded: "2024-10-26", "2024-1-5", "2024-10-26 10:00", "2024-10-26T10:00:00".
var isoish = regexp.MustCompile(`(?i)^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:t|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(z|utc|gmt|[+-]\d{2}(?::?\d{2})?)?)?$`)

// clock is a time of day at the end of a date: "10:00", "10:30:15.5",
// "10am", "10:30 p.m.", with an optional zone.
var clock = regexp.MustCompile(`(?i)(?:^|[\s,@]+(?:at\s+)?)(\d{1,2})(?::(\d{2}))?(?::(\d{2})(\.\d{1,9})?)?\s*(?:([ap])\.?m\.?)?\s*(z|utc|gmt|[+-]\d{2}(?::?\d{2})?)?$`)

// parseWhen reads the dates people and models write. It refuses what it
// cannot read without a guess: "03/04/2024" (March 4 or April 3?), a
// two-digit year, an unknown word ("next Tuesday"), a zone name other
// than UTC. A date without a year takes the first such day on or after
// today; with a zero today it is refused.
func parseWhen(s string, today time.Time) (when, error) {
	return parseDate(s, today, false)
}

// parseDate is parseWhen that also reads, when relative is set, a day
// written relative to today (relativeDay), with an optional time of day:
// "tomorrow at 3pm".
func parseDate(s string, today time.Time, relative bool) (when, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxDateLen {
		return when{}, fmt.Errorf("too long to be a date")
	}
	if m := isoish.FindStringSubmatch(s); m != nil {
		w := when{y: atoi(m[1]), m: atoi(m[2]), d: atoi(m[3])}
		if m[4] != "" {
			if err := w.setClock(m[4], m[5], m[6], m[7], "", m[8]); err != nil {
				return when{}, err
			}
		}
		return w, w.checkDate()
	}
	var w when
	if m := clock.FindStringSubmatchIndex(s); m != nil {
		part := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		// A bare number ("Oct 26") is a day, not an hour: a time needs
		// minutes or am/pm.
		if part(2) != "" || part(5) != "" {
			if err := w.setClock(part(1), part(2), part(3), part(4), part(5), part(6)); err != nil {
				return when{}, err
			}
			s = strings.TrimSpace(s[:m[0]])
		}
	}
	if relative {
		if y, m, d, err := relativeDay(s, today); err == nil {
			w.y, w.m, w.d, w.relative = y, m, d, true
			return w, w.checkDate()
		}
	}
	if err := w.setDate(s, today); err != nil {
		return when{}, err
	}
	return w, w.checkDate()
}

// setClock fills the time of day and zone.
func (w *when) setClock(hh, mi, ss, frac, ampm, zone string) error {
	w.hasTime = true
	w.hh, w.mi, w.frac = atoi(hh), atoi(mi), frac
	if ss != "" {
		w.ss = atoi(ss)
	}
	if ampm != "" {
		if w.hh < 1 || w.hh > 12 {
			return fmt.Errorf("hour %d is not a 12-hour clock hour", w.hh)
		}
		w.hh %= 12
		if strings.EqualFold(ampm, "p") {
			w.hh += 12
		}
	}
	if w.hh > 23 || w.mi > 59 || w.ss > 59 {
		return fmt.Errorf("%02d:%02d:%02d is not a time of day", w.hh, w.mi, w.ss)
	}
	z, err := zoneOffset(zone)
	w.zone = z
	return err
}

// zoneOffset writes a zone as RFC 3339 does: "Z" or "+hh:mm".
func zoneOffset(z string) (string, error) {
	switch strings.ToLower(z) {
	case "":
		return "", nil
	case "z", "utc", "gmt":
		return "Z", nil
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	if len(digits) == 2 {
		digits += "00"
	}
	if len(digits) != 4 {
		return "", fmt.Errorf("%q is not a zone offset", z)
	}
	if h, m := atoi(digits[:2]), atoi(digits[2:]); h > 23 || m > 59 {
		return "", fmt.Errorf("%q is not a zone offset", z)
	}
	return fmt.Sprintf("%c%s:%s", z[0], digits[:2], digits[2:]), nil
}

// token is a run of letters or of digits in a date, with the separator
// character just before it (0 at the start).
type token struct {
	text  string
	num   bool
	sepBy rune
}

func tokenize(s string) []token {
	var out []token
	var sep rune
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsLetter(r) || isDigit(r):
			num := isDigit(r)
			j := i
			for j < len(rs) && (num && isDigit(rs[j]) || !num && unicode.IsLetter(rs[j])) {
				j++
			}
			out = append(out, token{text: string(rs[i:j]), num: num, sepBy: sep})
			sep, i = 0, j
		default:
			if !unicode.IsSpace(r) || sep == 0 {
				sep = r
			}
			i++
		}
	}
	return out
}

// isDigit is an ASCII digit: other scripts' digits are not read as dates.
func isDigit(r rune) bool { return r >= '0' && r <= '9' }

var months = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

// ignored words: weekdays (the date says the day), ordinal suffixes, "of".
var ignored = map[string]bool{
	"mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true, "wed": true, "wednesday": true,
	"thu": true, "thur": true, "thurs": true, "thursday": true, "fri": true, "friday": true,
	"sat": true, "saturday": true, "sun": true, "sunday": true,
	"st": true, "nd": true, "rd": true, "th": true, "of": true, "the": true,
}

// setDate reads the date part: with a month name ("Oct 26, 2024",
// "26 October 2024", "Saturday, October 26th") or in numbers
// ("2024/10/26", "26.10.2024", "10/26/2024", "20241026").
func (w *when) setDate(s string, today time.Time) error {
	var nums []token
	month := 0
	for _, t := range tokenize(s) {
		if t.num {
			nums = append(nums, t)
			continue
		}
		word := strings.ToLower(t.text)
		if m, ok := months[word]; ok {
			if month != 0 {
				return fmt.Errorf("two months in %q", s)
			}
			month = m
			continue
		}
		if !ignored[word] {
			return fmt.Errorf("%q is not a word of a date", t.text)
		}
	}
	if month != 0 {
		return w.namedMonth(month, nums, today)
	}
	return w.numeric(nums)
}

// namedMonth reads a day and an optional four-digit year around a month
// name.
func (w *when) namedMonth(month int, nums []token, today time.Time) error {
	w.m = month
	for _, t := range nums {
		switch {
		case len(t.text) == 4 && w.y == 0:
			w.y = atoi(t.text)
		case len(t.text) <= 2 && w.d == 0 && atoi(t.text) >= 1:
			w.d = atoi(t.text)
		default:
			return fmt.Errorf("%q is neither a day nor a four-digit year", t.text)
		}
	}
	if w.d == 0 {
		return fmt.Errorf("no day of the month")
	}
	if w.y != 0 {
		return nil
	}
	if today.IsZero() {
		return fmt.Errorf("no year, and no today to take it from")
	}
	// The first such day on or after today; a 29 February may be up to
	// eight years away.
	from := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	for y := today.Year(); y <= today.Year()+8; y++ {
		t := time.Date(y, time.Month(month), w.d, 0, 0, 0, 0, time.UTC)
		if t.Day() == w.d && !t.Before(from) {
			w.y = y
			w.nextYear = y > today.Year()
			return nil
		}
	}
	return fmt.Errorf("month %d has no day %d", month, w.d)
}

// numeric reads an all-number date. Year first is year-month-day; year
// last with dots is day.month.year; year last otherwise is month/day/year
// or day/month/year, whichever the numbers allow, refused when both do.
func (w *when) numeric(nums []token) error {
	switch {
	case len(nums) == 1 && len(nums[0].text) == 8:
		t := nums[0].text
		w.y, w.m, w.d = atoi(t[:4]), atoi(t[4:6]), atoi(t[6:])
		return nil
	case len(nums) != 3:
		return fmt.Errorf("not a date")
	}
	a, b, c := nums[0].text, nums[1].text, nums[2].text
	switch {
	case len(a) == 4 && len(b) <= 2 && len(c) <= 2:
		w.y, w.m, w.d = atoi(a), atoi(b), atoi(c)
	case len(c) == 4 && len(a) <= 2 && len(b) <= 2:
		w.y = atoi(c)
		x, y := atoi(a), atoi(b)
		switch {
		case nums[1].sepBy == '.' && nums[2].sepBy == '.':
			w.d, w.m = x, y
		case x > 12 && y <= 12:
			w.d, w.m = x, y
		case y > 12 && x <= 12, x == y:
			w.m, w.d = x, y
		default:
			return fmt.Errorf("%s/%s/%s could be month/day or day/month", a, b, c)
		}
	default:
		return fmt.Errorf("a date needs a four-digit year")
	}
	return nil
}

// checkDate refuses a day the calendar does not have.
func (w when) checkDate() error {
	if w.m < 1 || w.m > 12 || w.d < 1 {
		return fmt.Errorf("%04d-%02d-%02d is not a date", w.y, w.m, w.d)
	}
	if t := time.Date(w.y, time.Month(w.m), w.d, 0, 0, 0, 0, time.UTC); t.Day() != w.d || w.y < 1 {
		return fmt.Errorf("%04d-%02d-%02d is not a date", w.y, w.m, w.d)
	}
	return nil
}

// atoi reads digits the patterns above already checked.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
