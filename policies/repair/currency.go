package repair

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/currency"
)

// The currencies of numbers written as text ("$25.99", "25 USD"). Codes
// are checked against ISO 4217 by golang.org/x/text/currency (already a
// dependency); symbols are the common ones, longest first so that "US$"
// is not read as "US" and "$".
var currencySymbols = func() []string {
	s := []string{"US$", "CA$", "A$", "NZ$", "HK$", "MX$", "R$", "CN¥",
		"$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₪", "₫", "₱", "฿", "₴", "₦"}
	sort.SliceStable(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return s
}()

// cutCurrency takes a currency off the front (prefix) or the back of t:
// a symbol, or an ISO code not run into other letters ("USD 25", "25usd";
// not "USDX25"). It answers the currency as written (codes in upper case)
// and the rest, trimmed.
func cutCurrency(t string, prefix bool) (string, string, bool) {
	for _, sym := range currencySymbols {
		if prefix {
			if rest, ok := strings.CutPrefix(t, sym); ok {
				return sym, strings.TrimSpace(rest), true
			}
		} else if rest, ok := strings.CutSuffix(t, sym); ok {
			return sym, strings.TrimSpace(rest), true
		}
	}
	if len(t) < 4 {
		return "", "", false
	}
	code, rest, next := t[:3], t[3:], rune(t[3])
	if !prefix {
		code, rest, next = t[len(t)-3:], t[:len(t)-3], rune(t[len(t)-4])
	}
	if unicode.IsLetter(next) || !isoCode(code) {
		return "", "", false
	}
	return strings.ToUpper(code), strings.TrimSpace(rest), true
}

// isoCode reports an ISO 4217 code of a currency (not the X codes of
// gold, funds or "no currency").
func isoCode(s string) bool {
	if len(s) != 3 || strings.ContainsFunc(s, func(c rune) bool { return c > unicode.MaxASCII || !unicode.IsLetter(c) }) {
		return false
	}
	u, err := currency.ParseISO(s)
	return err == nil && !strings.HasPrefix(u.String(), "X")
}

// currencyAgrees reports whether a currency as written can be the one an
// ISO code names: the code itself, or its symbol ("$" is the narrow
// symbol of USD, CAD, AUD, ...; "CA$" only of CAD).
func currencyAgrees(written, code string) bool {
	u, err := currency.ParseISO(code)
	if err != nil {
		return false
	}
	if written == "US$" {
		written = "USD"
	}
	if written == u.String() {
		return true
	}
	return written == english.Sprint(currency.Symbol(u)) || written == english.Sprint(currency.NarrowSymbol(u))
}

// currencyConflict reports whether the object holding a value names, in
// a property whose name says currency, a currency the value's own does
// not agree with: {"amount": "€75", "currency": "USD"} is not certain.
// self is the value's own property, not a sibling.
func currencyConflict(siblings map[string]any, self, written string) bool {
	for k, v := range siblings { // any order: the answer is one boolean
		s, ok := v.(string)
		lk := strings.ToLower(k)
		if !ok || k == self || !(strings.Contains(lk, "currenc") || lk == "ccy" || lk == "cur") {
			continue
		}
		s = strings.TrimSpace(s)
		if !isoCode(s) || !currencyAgrees(written, strings.ToUpper(s)) {
			return true
		}
	}
	return false
}
