package eval

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// minSecret is the shortest value taken for a secret: shorter ones
// ("1", "true") would be found everywhere.
const minSecret = 8

// FindSecret names the first field of c that holds one of secrets (a key,
// a token, a header's value), or "" when none does.
func FindSecret(c *Case, secrets []string) string {
	var keep []string
	for _, s := range secrets {
		if len(s) >= minSecret {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	var v any
	_ = json.Unmarshal(b, &v)
	return find(v, "", keep)
}

// find walks v depth first, in key order, for a string holding a secret.
func find(v any, at string, secrets []string) string {
	switch t := v.(type) {
	case string:
		for _, s := range secrets {
			if strings.Contains(t, s) {
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
