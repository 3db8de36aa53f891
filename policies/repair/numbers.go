package repair

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
)

// numberText is a decimal number as people and models write it: JSON's
// form plus a leading "+", leading zeros, "5." and ".5".
var numberText = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$`)

// maxExponent bounds the exponents read here: big.Rat would otherwise
// build a number with as many digits as the exponent says.
const maxExponent = 400

// maxNumberLen bounds the length of a number read here, for the same
// reason.
const maxNumberLen = 400

// parseNumber reads a number from text (trimmed by the caller) exactly.
func parseNumber(s string) (*big.Rat, bool) {
	if len(s) == 0 || len(s) > maxNumberLen {
		return nil, false
	}
	m := numberText.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return nil, false
	}
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	txt := s
	if m[1] == "+" {
		txt = s[1:]
	}
	r, ok := new(big.Rat).SetString(txt)
	return r, ok
}

// numberRat reads a JSON number value.
func numberRat(n json.Number) (*big.Rat, bool) {
	return parseNumber(string(n))
}

// ratNumber writes r as the shortest exact JSON number: integers as
// integers, decimals with the digits they need.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	for prec := 1; prec <= 2*maxExponent; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return json.Number(s)
		}
	}
	return json.Number(r.FloatString(2 * maxExponent))
}

// floor and ceil of a rational, as integers.
func floor(r *big.Rat) *big.Rat {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: rounds down for a positive divisor
	return new(big.Rat).SetInt(q)
}

func ceil(r *big.Rat) *big.Rat {
	f := floor(r)
	if f.Cmp(r) == 0 {
		return f
	}
	return f.Add(f, big.NewRat(1, 1))
}
