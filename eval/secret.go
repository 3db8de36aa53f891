package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// minSecret is the shortest value taken for a secret: shorter ones
// ("1", "true") would be found everywhere.
const minSecret = 8

// FindSecret names the first field of c that holds one of secrets (a key,
// a token, a header's value, a PIN), or "" when none does. A number holds
// a secret when its text holds it, or when it equals a secret written as
// a decimal number (a number read as float64 may have lost its last
// digits).
func FindSecret(c *Case, secrets []string) string {
	var keep []secret
	for _, s := range secrets {
		if len(s) >= minSecret {
			keep = append(keep, newSecret(s))
		}
	}
	if len(keep) == 0 {
		return ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a number as its text, not a float64
	var v any
	_ = dec.Decode(&v)
	return find(v, "", keep)
}

// secret is a secret's value, and the number it writes when it is a
// decimal one (0 when it is not, or is zero: "00000000" is no reason to
// refuse every 0).
type secret struct {
	text   string
	number float64
}

// decimal is a number as a person writes one, without leading zeros.
var decimal = regexp.MustCompile(`^-?[1-9][0-9]*(\.[0-9]+)?$|^-?0\.[0-9]+$`)

func newSecret(s string) secret {
	if !decimal.MatchString(s) {
		return secret{text: s}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return secret{text: s}
	}
	return secret{text: s, number: f}
}

// in says whether a string or a number's text holds s, or the number
// equals it.
func (s secret) in(text string, number bool) bool {
	if strings.Contains(text, s.text) {
		return true
	}
	if !number || s.number == 0 {
		return false
	}
	f, err := strconv.ParseFloat(text, 64)
	return err == nil && f == s.number
}

// find walks v depth first, in key order, for a string or a number
// holding a secret.
func find(v any, at string, secrets []secret) string {
	switch t := v.(type) {
	case string:
		for _, s := range secrets {
			if s.in(t, false) {
				return at
			}
		}
	case json.Number:
		for _, s := range secrets {
			if s.in(t.String(), true) {
				return at
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if find(k, join(at, k), secrets) != "" {
				return join(at, k)
			}
			if f := find(t[k], join(at, k), secrets); f != "" {
				return f
			}
		}
	case []any:
		for i, x := range t {
			if f := find(x, fmt.Sprintf("%s[%d]", at, i), secrets); f != "" {
				return f
			}
		}
	}
	return ""
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// EnvSecrets are the values of the environment's variables whose names
// say they hold a secret (KEY, TOKEN, SECRET, PASSWORD, AUTH): what an
// export must never write.
func EnvSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		for _, word := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH"} {
			if strings.Contains(upper, word) {
				out = append(out, value)
				break
			}
		}
	}
	return out
}
