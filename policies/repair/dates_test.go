package repair

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReformatDate(t *testing.T) {
	cases := []struct {
		in, format, out string
	}{
		// the common layouts, to a date
		{"Oct 26, 2024", "date", "2024-10-26"},
		{"October 26 2024", "date", "2024-10-26"},
		{"26 Oct 2024", "date", "2024-10-26"},
		{"26 October, 2024", "date", "2024-10-26"},
		{"Oct. 26th, 2024", "date", "2024-10-26"},
		{"Saturday, October 26, 2024", "date", "2024-10-26"},
		{"26-Oct-2024", "date", "2024-10-26"},
		{"the 26th of October 2024", "date", "2024-10-26"},
		{"2024/10/26", "date", "2024-10-26"},
		{"2024.10.26", "date", "2024-10-26"},
		{"2024-1-5", "date", "2024-01-05"},
		{"20241026", "date", "2024-10-26"},
		{"26.10.2024", "date", "2024-10-26"},
		{"05.03.2024", "date", "2024-03-05"},
		{"10/26/2024", "date", "2024-10-26"},
		{"26/10/2024", "date", "2024-10-26"},
		{"04/04/2024", "date", "2024-04-04"},
		{"Feb 29, 2024", "date", "2024-02-29"},
		// a date-time where a date is wanted: its date part, as written
		{"2024-10-26T10:00:00", "date", "2024-10-26"},
		{"2024-10-26T23:30:00-05:00", "date", "2024-10-26"},
		{"Oct 26, 2024 10:00 AM", "date", "2024-10-26"},
		// to a date-time
		{"2024-10-26T10:00:00", "date-time", "2024-10-26T10:00:00Z"},
		{"2024-10-26 10:00", "date-time", "2024-10-26T10:00:00Z"},
		{"2024-10-26t10:00:00.250+0200", "date-time", "2024-10-26T10:00:00.250+02:00"},
		{"2024-10-26T10:00:00 UTC", "date-time", "2024-10-26T10:00:00Z"},
		{"Oct 26, 2024 at 3:30 pm", "date-time", "2024-10-26T15:30:00Z"},
		{"10/26/2024 12:15 AM", "date-time", "2024-10-26T00:15:00Z"},
		{"26.10.2024 14:30 +01:00", "date-time", "2024-10-26T14:30:00+01:00"},
		{"October 26 2024 10am", "date-time", "2024-10-26T10:00:00Z"},
		// needs a year: the first such day on or after today (2024-09-01)
		{"Oct 26", "date", "2024-10-26"},
		{"Jan 5", "date", "2025-01-05"},
	}
	for _, c := range cases {
		t.Run(c.in+" as "+c.format, func(t *testing.T) {
			out, why, ok := reformatDate(c.in, c.format, today, RulesNewest)
			require.True(t, ok, "not reformatted")
			require.Equal(t, c.out, out)
			require.NotEmpty(t, why)
		})
	}
}

// What cannot be read without a guess is refused.
func TestReformatDateRefuses(t *testing.T) {
	cases := []struct {
		name   string
		in     any
		format string
		today  time.Time
	}{
		{"month/day or day/month", "03/04/2024", "date", today},
		{"two-digit year", "10/26/24", "date", today},
		{"no such day", "Feb 30, 2024", "date", today},
		{"no such month", "2024-13-01", "date", today},
		{"relative words", "next Tuesday", "date", today},
		{"tomorrow", "tomorrow", "date", today},
		{"no day", "October 2024", "date", today},
		{"no year and no today", "Oct 26", "date", time.Time{}},
		{"two months", "Oct Nov 26 2024", "date", today},
		{"a date alone is no date-time", "2024-10-26", "date-time", today},
		{"named zone", "2024-10-26 10:00 EST", "date-time", today},
		{"hour out of range", "2024-10-26 25:00", "date-time", today},
		{"13 pm", "Oct 26, 2024 13:00 pm", "date-time", today},
		{"already right", "2024-10-26", "date", today},
		{"not a string", 20241026, "date", today},
		{"other format", "Oct 26, 2024", "email", today},
		{"too long", "Oct 26, 2024 and then some more words to make it far too long", "date", today},
		{"non-ASCII digits", "٢٠٢٤-١٠-٢٦", "date", today},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, ok := reformatDate(c.in, c.format, c.today, RulesNewest)
			require.False(t, ok)
		})
	}
}

// A day written without a year whose day this year has passed is taken in
// a later year only when that is within half a year (the newest rules):
// otherwise last week's or next year's is a judgement. The first rules
// took the next such day however far, and a run recorded with them keeps
// them.
func TestYearlessDatePastIsAJudgement(t *testing.T) {
	march15 := time.Date(2025, 3, 15, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		in     string
		today  time.Time
		newest string // "" when the newest rules leave it to the model
		first  string
	}{
		{"March 10", march15, "", "2026-03-10"},
		{"March 20", march15, "2025-03-20", "2025-03-20"},
		{"March 15", march15, "2025-03-15", "2025-03-15"},
		{"Feb 29", today, "", "2028-02-29"},
		{"Jan 5", today, "2025-01-05", "2025-01-05"},
		{"Jan 5", time.Date(2024, 12, 28, 0, 0, 0, 0, time.UTC), "2025-01-05", "2025-01-05"},
		{"Aug 1", today, "", "2025-08-01"},
	}
	for _, c := range cases {
		t.Run(c.in+" on "+c.today.Format("2006-01-02"), func(t *testing.T) {
			out, _, ok := reformatDate(c.in, "date", c.today, RulesNewest)
			require.Equal(t, c.newest != "", ok, "newest rules")
			require.Equal(t, c.newest, out)
			out, _, ok = reformatDate(c.in, "date", c.today, RulesFirst)
			require.True(t, ok, "first rules")
			require.Equal(t, c.first, out)
		})
	}
}
