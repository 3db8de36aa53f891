package config

import (
	"errors"
	"fmt"
	"strings"
)

// MaxVolatile bounds a tool's volatile list: each entry is looked for in
// every call's arguments when the loop detector signs them.
const MaxVolatile = 64

// VolatileField reads one entry of a tool's `volatile` list. An entry
// that starts with "/" is a JSON pointer (RFC 6901) to one place in the
// arguments: its reference tokens are answered, unescaped, with pointer
// true ("/pax/0/id" is ["pax", "0", "id"]; an array index is its decimal
// text). Any other entry is a field name, left out wherever it appears,
// at any depth, as the built-in volatile names are.
func VolatileField(entry string) (tokens []string, pointer bool, err error) {
	if entry == "" {
		return nil, false, errors.New("empty: write a field name (request_id) or a JSON pointer (/meta/sent_at)")
	}
	if !strings.HasPrefix(entry, "/") {
		return nil, false, nil
	}
	for _, raw := range strings.Split(entry[1:], "/") {
		tok, err := unescapePointerToken(raw)
		if err != nil {
			return nil, true, fmt.Errorf("JSON pointer %q: %v", entry, err)
		}
		tokens = append(tokens, tok)
	}
	return tokens, true, nil
}

// unescapePointerToken turns ~1 into / and ~0 into ~; any other ~ is not
// a JSON pointer.
func unescapePointerToken(s string) (string, error) {
	if !strings.Contains(s, "~") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return "", errors.New("~ must be followed by 0 (for ~) or 1 (for /)")
		}
		b.WriteByte("~/"[s[i+1]-'0'])
		i++
	}
	return b.String(), nil
}

// volatile checks a tool's volatile list: at most MaxVolatile entries,
// each a field name or a well-formed JSON pointer, none twice.
func (c *checker) volatile(p path, entries []string) {
	if len(entries) > MaxVolatile {
		c.add(p, "at most %d entries, got %d", MaxVolatile, len(entries))
	}
	for i, e := range entries {
		if _, _, err := VolatileField(e); err != nil {
			c.add(p.idx(i), "%v", err)
			continue
		}
		for j := range i {
			if entries[j] == e {
				c.add(p.idx(i), "%q is listed twice (also volatile[%d])", e, j)
				break
			}
		}
	}
}
