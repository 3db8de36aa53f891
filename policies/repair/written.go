package repair

import (
	"math/big"
	"strings"
	"unicode/utf8"
)

// Numbers as people write them (strategy read_number): "$25.99", "€75",
// "25 USD", "1,250.50", "1.250,50", "1 250,50", "15%". Models copy them
// from the conversation; the tool wants 25.99. The rule is certain only
// when the text has exactly one reading:
//
//   - at most one currency, a symbol (currencySymbols) or an ISO 4217
//     code (golang.org/x/text/currency), before or after the number, and
//     no sibling currency property naming another currency (currency.go);
//   - thousands separators (",", ".", a space, a no-break space, "'") in
//     groups of three after a first group of one to three digits, with at
//     most one decimal mark of the other kind after them. A single comma
//     and nothing else ("1,250", "2,5") has two readings (1250 or 1.25, a
//     decimal comma or a list), so it is refused; a single dot is read as
//     JSON reads it, by parseNumber, before this rule;
//   - a percentage only where the schema gives its scale (percentScale);
//   - at most maxWrittenLen bytes of valid UTF-8: hundreds of digits with
//     separators are not read.
//
// Words ("a lot", "seventy two") are never read.

// maxWrittenLen bounds the text this rule reads.
const maxWrittenLen = 64

var bigHundred = big.NewRat(100, 1)

// written is a number read from text, with what was read around it.
type written struct {
	value    *big.Rat
	currency string // as written: a symbol, or an upper-case ISO code
	percent  bool
	grouped  bool // thousands separators were read
}

// readWritten reads a number as people write it, or answers false when
// the text has no single reading.
func readWritten(s string) (written, bool) {
	var w written
	t := strings.TrimSpace(s)
	if len(t) == 0 || len(t) > maxWrittenLen || !utf8.ValidString(t) {
		return w, false
	}
	t, neg := cutSign(t)
	if cur, rest, ok := cutCurrency(t, true); ok {
		w.currency, t = cur, rest
	} else if cur, rest, ok := cutCurrency(t, false); ok {
		w.currency, t = cur, rest
	}
	if !neg && w.currency != "" {
		t, neg = cutSign(t) // "$-25"
	}
	if rest, ok := strings.CutSuffix(t, "%"); ok && w.currency == "" {
		w.percent, t = true, strings.TrimSpace(rest)
	}
	digits, grouped, ok := ungroup(t)
	if !ok {
		return w, false
	}
	r, ok := new(big.Rat).SetString(digits)
	if !ok {
		return w, false
	}
	if neg {
		r.Neg(r)
	}
	w.value, w.grouped = r, grouped
	return w, w.currency != "" || w.percent || grouped
}

// cutSign takes a leading minus or plus sign off.
func cutSign(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "-"):
		return strings.TrimSpace(t[1:]), true
	case strings.HasPrefix(t, "+"):
		return strings.TrimSpace(t[1:]), false
	}
	return t, false
}

// ungroup reads digits with thousands separators and at most one decimal
// mark into plain "1234.5" form; grouped reports separators were read.
func ungroup(t string) (digits string, grouped, ok bool) {
	var dots, commas, spaces int
	space := rune(0)
	for _, c := range t {
		switch {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
		case c == ',':
			commas++
		case isGroupSpace(c):
			if space != 0 && c != space {
				return "", false, false // two kinds of space
			}
			space = c
			spaces++
		default:
			return "", false, false
		}
	}
	var group, decimal rune
	switch {
	case spaces > 0 && dots+commas > 1:
		return "", false, false // "1 250.000,5": three kinds of mark
	case spaces > 0:
		group = space
		if dots == 1 {
			decimal = '.'
		} else if commas == 1 {
			decimal = ','
		}
	case dots > 0 && commas > 0:
		// The last mark is the decimal one; it appears once.
		group, decimal = ',', '.'
		if strings.LastIndexByte(t, ',') > strings.LastIndexByte(t, '.') {
			group, decimal = '.', ','
		}
		if strings.Count(t, string(decimal)) != 1 {
			return "", false, false
		}
	case dots > 1:
		group = '.'
	case commas > 1:
		group = ','
	case commas == 1:
		return "", false, false // "1,250" or "2,5": two readings
	default: // digits, with at most one dot: JSON's form
		return t, false, t != "" && t != "." && !strings.HasSuffix(t, ".") && !strings.HasPrefix(t, ".")
	}
	intPart, frac := t, ""
	if decimal != 0 {
		i := strings.LastIndex(t, string(decimal))
		intPart, frac = t[:i], t[i+len(string(decimal)):]
		if frac == "" || strings.ContainsFunc(frac, func(c rune) bool { return c < '0' || c > '9' }) {
			return "", false, false
		}
	}
	groups := strings.Split(intPart, string(group))
	for i, g := range groups {
		if strings.ContainsFunc(g, func(c rune) bool { return c < '0' || c > '9' }) ||
			(i == 0 && (len(g) < 1 || len(g) > 3)) || (i > 0 && len(g) != 3) {
			return "", false, false
		}
	}
	digits = strings.Join(groups, "")
	if frac != "" {
		digits += "." + frac
	}
	return digits, len(groups) > 1, true
}

// isGroupSpace reports the spaces and apostrophes used as thousands
// separators: a space, a no-break space (U+00A0), a narrow no-break space
// (U+202F, French), an apostrophe (Swiss).
func isGroupSpace(c rune) bool {
	return c == ' ' || c == '\u00a0' || c == '\u202f' || c == '\'' || c == '’'
}
