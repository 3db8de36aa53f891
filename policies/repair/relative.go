package repair

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// relativeDay reads a date written relative to today: "today",
// "tomorrow", "yesterday", "the day after tomorrow", "in 3 days",
// "2 weeks ago", "in a week", "this coming Friday", "next Friday".
// today's day is taken in UTC, the run's clock (workflow.Now).
//
// Certain when the words name one day whoever reads them:
//   - a count of days or weeks (never months or years: "in a month" from
//     January 31 is a judgement), at most maxRelativeDays away;
//   - "next Friday" only when the coming Friday is in the next calendar
//     week whether weeks start on Monday or on Sunday; otherwise it may
//     mean the coming Friday or the one after, and is refused;
//   - a bare weekday ("Friday", "this Friday", "last Friday") is refused:
//     past or coming is a judgement.
//
// A person's "tomorrow" is the day after their own today, which may not
// be the run's day in UTC near midnight; the workflow has no other clock,
// and neither has the model it would otherwise ask.
func relativeDay(s string, today time.Time) (y, m, d int, err error) {
	if today.IsZero() {
		return 0, 0, 0, fmt.Errorf("no today to count from")
	}
	t := today.UTC()
	base := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	days, err := relativeDays(strings.Fields(strings.ToLower(s)), base.Weekday())
	if err != nil {
		return 0, 0, 0, err
	}
	out := base.AddDate(0, 0, days)
	return out.Year(), int(out.Month()), out.Day(), nil
}

// maxRelativeDays bounds a count: "in 100000 weeks" is no tool's date.
const maxRelativeDays = 366 * 10

// fixedDays are the phrases that name one day by themselves.
var fixedDays = map[string]int{
	"today": 0, "tomorrow": 1, "yesterday": -1,
	"the day after tomorrow": 2, "day after tomorrow": 2,
	"the day before yesterday": -2, "day before yesterday": -2,
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// relativeDays is how many days from today the words point.
func relativeDays(words []string, now time.Weekday) (int, error) {
	phrase := strings.Join(words, " ")
	if n, ok := fixedDays[phrase]; ok {
		return n, nil
	}
	switch {
	case len(words) == 3 && words[0] == "in": // in 3 days
		return count(words[1], words[2], 1)
	case len(words) == 3 && words[2] == "ago": // 3 days ago
		return count(words[0], words[1], -1)
	case len(words) == 2 && words[0] == "next":
		return nextWeekday(words[1], now)
	case len(words) == 3 && words[0] == "this" && words[1] == "coming":
		w, ok := weekdays[words[2]]
		if !ok {
			break
		}
		return comingIn(w, now), nil
	}
	return 0, fmt.Errorf("%q is not a relative date read without a guess", phrase)
}

// count reads "3 days", "a week", "2 weeks" (signed by dir).
func count(n, unit string, dir int) (int, error) {
	k := 0
	switch n {
	case "a", "one":
		k = 1
	default:
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 || len(n) > 5 {
			return 0, fmt.Errorf("%q is not a count", n)
		}
		k = v
	}
	switch strings.TrimSuffix(unit, "s") {
	case "day":
	case "week":
		k *= 7
	default:
		return 0, fmt.Errorf("%q is not days or weeks", unit)
	}
	if k > maxRelativeDays {
		return 0, fmt.Errorf("%d days is too far", k)
	}
	return dir * k, nil
}

// comingIn is how many days until the first w after today (1 to 7).
func comingIn(w, now time.Weekday) int {
	d := (int(w) - int(now) + 7) % 7
	if d == 0 {
		d = 7
	}
	return d
}

// nextWeekday reads "next Friday": the coming Friday when it falls in
// the next calendar week however weeks are counted (then "the coming
// one" and "the one of next week" are the same day).
func nextWeekday(word string, now time.Weekday) (int, error) {
	w, ok := weekdays[word]
	if !ok {
		return 0, fmt.Errorf("%q is not a weekday", word)
	}
	d := comingIn(w, now)
	leftMon := (7 - int(now)) % 7 // days after today in a Monday-to-Sunday week
	leftSun := 6 - int(now)       // in a Sunday-to-Saturday week
	if d > leftMon && d > leftSun {
		return d, nil
	}
	return 0, fmt.Errorf("next %s could be the coming one or the one after", word)
}
