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
func reformatDate(v any, format string, today time.Time) (string, string, bool) {
	return rewriteDate(v, format, today, false)
}

// resolveRelative rewrites a date written relative to today ("tomorrow",
// "next Friday at 10:00"; see relativeDay for when that is certain) into
// the schema's format. It answers only for such dates.
func resolveRelative(v any, format string, today time.Time) (string, string, bool) {
	return rewriteDate(v, format, today, true)
}

func rewriteDate(v any, format string, today time.Time, relative bool) (string, string, bool) {
	s, ok := v.(string)
	if !ok || (format != "date" && format != "date-time") {
		return "", "", false
	}
	w, err := parseDate(s, today, relative)
	if err != nil || w.relative != relative {
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
