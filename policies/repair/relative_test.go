package repair

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestResolveRelative(t *testing.T) {
	sunday := today // 2024-09-01
	friday := time.Date(2024, 9, 6, 23, 0, 0, 0, time.UTC)
	saturday := time.Date(2024, 9, 7, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		in, format string
		now        time.Time
		out        string
	}{
		{"today", "date", sunday, "2024-09-01"},
		{"Tomorrow", "date", sunday, "2024-09-02"},
		{"yesterday", "date", sunday, "2024-08-31"},
		{"the day after tomorrow", "date", sunday, "2024-09-03"},
		{"day before yesterday", "date", sunday, "2024-08-30"},
		{"in 3 days", "date", sunday, "2024-09-04"},
		{"in  1 day", "date", sunday, "2024-09-02"},
		{"2 weeks ago", "date", sunday, "2024-08-18"},
		{"in a week", "date", sunday, "2024-09-08"},
		{"this coming Friday", "date", sunday, "2024-09-06"},
		{"next Friday", "date", saturday, "2024-09-13"},
		{"next Friday", "date", friday, "2024-09-13"},
		{"next Monday", "date", friday, "2024-09-09"},
		{"next Monday", "date", sunday.AddDate(0, 0, 1), "2024-09-09"}, // said on a Monday: a week later
		{"tomorrow at 3pm", "date-time", sunday, "2024-09-02T15:00:00Z"},
		{"tomorrow 10:30 +02:00", "date-time", sunday, "2024-09-02T10:30:00+02:00"},
		{"tomorrow", "date", time.Date(2024, 12, 31, 23, 0, 0, 0, time.FixedZone("x", -5*3600)), "2025-01-02"}, // the run's day in UTC
	}
	for _, c := range cases {
		t.Run(c.in+" on "+c.now.Weekday().String(), func(t *testing.T) {
			out, why, ok := resolveRelative(c.in, c.format, c.now)
			require.True(t, ok, "not resolved")
			require.Equal(t, c.out, out)
			require.Contains(t, why, "resolved against the run's day")
			_, _, ok = reformatDate(c.in, c.format, c.now, RulesNewest)
			require.False(t, ok, "reformat_date reads no relative date")
		})
	}
}

// A relative date that could name two days, or is no date, is refused.
func TestResolveRelativeRefuses(t *testing.T) {
	sunday := today
	friday := time.Date(2024, 9, 6, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, in, format string
		now              time.Time
	}{
		{"next Friday on a Sunday: this week's or next week's", "next Friday", "date", sunday},
		{"next Sunday on a Friday", "next Sunday", "date", friday},
		{"next Wednesday on a Monday", "next Wednesday", "date", sunday.AddDate(0, 0, 1)},
		{"a bare weekday: past or coming", "Friday", "date", sunday},
		{"this Friday", "this Friday", "date", sunday},
		{"last Friday", "last Friday", "date", sunday},
		{"months are not counted", "in 2 months", "date", sunday},
		{"a week is not a day", "next week", "date", sunday},
		{"too far", "in 99999 weeks", "date", sunday},
		{"zero", "in 0 days", "date", sunday},
		{"negative", "in -3 days", "date", sunday},
		{"no today", "tomorrow", "date", time.Time{}},
		{"a date alone is no date-time", "tomorrow", "date-time", sunday},
		{"an absolute date is reformat_date's", "Oct 26, 2024", "date", sunday},

		{"other format", "tomorrow", "email", sunday},
		{"surrounding words", "tomorrow or the day after", "date", sunday},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, ok := resolveRelative(c.in, c.format, c.now)
			require.False(t, ok, out)
		})
	}
}

// Through Repair the rule is relative_date, and Options.Disabled turns
// it off.
func TestRepairRelativeDate(t *testing.T) {
	schema := schemaOf(t, flightSchema)
	args := obj(t, `{"origin": "LHR", "destination": "CDG", "departure_date": "tomorrow", "passengers": 1}`)
	r := Repair(schema, args, Options{Today: today})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, []string{StrategyRelativeDate}, strategies(r))
	require.Equal(t, "tomorrow", r.Repairs[0].Before)
	require.Equal(t, "2024-09-02", r.Repairs[0].After)
	require.Equal(t, "2024-09-02", r.Args["departure_date"])

	r = Repair(schema, args, Options{Today: today, Disabled: []string{StrategyRelativeDate}})
	require.False(t, r.Valid)
	require.Empty(t, r.Repairs)
}
