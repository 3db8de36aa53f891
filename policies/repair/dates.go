package repair

import (
	"fmt"
	"time"
)

// reformatDate rewrites a date or date-time into the schema's format:
// "date" is 2006-01-02, "date-time" is RFC 3339. A date-time given for a
// date keeps its date part (as written, not moved to UTC); a date-time
// without a zone is taken as UTC; a date alone is not made a date-time
// (which time of day is a judgement).
func reformatDate(v any, format string, today time.Time, rules RuleSet) (string, string, bool) {
	return rewriteDate(v, format, today, false, rules)
}

// resolveRelative rewrites a date written relative to today ("tomorrow",
// "next Friday at 10:00"; see relativeDay for when that is certain) into
// the schema's format. It answers only for such dates.
func resolveRelative(v any, format string, today time.Time) (string, string, bool) {
	return rewriteDate(v, format, today, true, RulesNewest)
}

// nearNextYear is how far ahead a day written without a year, whose day
// this year has passed, may fall in a later year and still be certain:
// half a year, so the day taken is nearer than the one that passed. "Jan
// 5" written in September is next January; "March 10" written on 15 March
// is last week or next year, and "Feb 29" in 2024 after it passed is four
// years away: which one is meant is a judgement.
const nearNextYear = 183 * 24 * time.Hour

// yearCertain says whether the year a date was given is certain: written,
// or this year's day still to come, or (newest rules) a later year's day
// within nearNextYear. RulesFirst took the next such day however far.
func yearCertain(w when, today time.Time, rules RuleSet) bool {
	if !w.nextYear || rules == RulesFirst {
		return true
	}
	day := time.Date(w.y, time.Month(w.m), w.d, 0, 0, 0, 0, time.UTC)
	return day.Sub(today.UTC()) <= nearNextYear
}

func rewriteDate(v any, format string, today time.Time, relative bool, rules RuleSet) (string, string, bool) {
	s, ok := v.(string)
	if !ok || (format != "date" && format != "date-time") {
		return "", "", false
	}
	w, err := parseDate(s, today, relative)
	if err != nil || w.relative != relative || !yearCertain(w, today, rules) {
		return "", "", false
	}
	var out, why string
	switch {
	case format == "date":
		out = fmt.Sprintf("%04d-%02d-%02d", w.y, w.m, w.d)
		why = "a date rewritten as YYYY-MM-DD"
		if w.hasTime {
			why = "a date-time where a date is wanted: its date part"
		}
	case !w.hasTime:
		return "", "", false
	default:
		zone := w.zone
		why = "a date-time rewritten in RFC 3339"
		if zone == "" {
			zone = "Z"
			why = "a date-time without a zone rewritten in RFC 3339, as UTC"
		}
		out = fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d%s%s", w.y, w.m, w.d, w.hh, w.mi, w.ss, w.frac, zone)
	}
	if out == s {
		return "", "", false
	}
	if relative {
		why = fmt.Sprintf("%q resolved against the run's day (%s, UTC): %s", s, today.UTC().Format("2006-01-02"), why)
	}
	return out, why, true
}
