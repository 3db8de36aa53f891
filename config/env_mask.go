package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// envMask stands in for the variable references of a file while YAML
// parses it. Each reference (or $${ escape) of the text becomes an inert
// placeholder of letters, digits and underscores, which parses the same
// in every YAML context (a flow mapping {url: ${URL}} included) and can
// never be YAML syntax; the placeholders are then resolved in the parsed
// tree, so a variable's value is always inside one scalar.
type envMask struct {
	prefix string         // no placeholder-like text of the file starts with it
	refs   []string       // the original text of placeholder i
	marks  *regexp.Regexp // a placeholder; group 1 is its index
}

// maskEnv masks the references of data, one line each, so every line of
// the masked text is where it was. A file without references answers nil.
func maskEnv(data []byte) ([]byte, *envMask) {
	locs := envRef.FindAllIndex(data, -1)
	if len(locs) == 0 {
		return data, nil
	}
	// A prefix the file does not hold, so a file cannot forge a placeholder.
	m := &envMask{}
	for k := 0; m.prefix == "" || bytes.Contains(data, []byte(m.prefix)); k++ {
		m.prefix = fmt.Sprintf("__unstuck_env%d_", k)
	}
	m.marks = regexp.MustCompile(regexp.QuoteMeta(m.prefix) + `([0-9]+)__`)
	var out bytes.Buffer
	last := 0
	for i, l := range locs {
		out.Write(data[last:l[0]])
		fmt.Fprintf(&out, "%s%d__", m.prefix, i)
		m.refs = append(m.refs, string(data[l[0]:l[1]]))
		last = l[1]
	}
	out.Write(data[last:])
	return out.Bytes(), m
}

// original puts back the references of s as written: for keys, header
// values and error messages, none of which are expanded.
func (m *envMask) original(s string) string {
	if m == nil || !strings.Contains(s, m.prefix) {
		return s
	}
	return m.marks.ReplaceAllStringFunc(s, func(mark string) string {
		return m.refs[m.index(mark)]
	})
}

// expand resolves the placeholders of s to their values, and answers the
// unset variables without default with their offsets in s.
func (m *envMask) expand(s string, getenv func(string) (string, bool)) (string, []unsetRef) {
	if m == nil || !strings.Contains(s, m.prefix) {
		return s, nil
	}
	var out strings.Builder
	var unset []unsetRef
	last := 0
	for _, loc := range m.marks.FindAllStringIndex(s, -1) {
		out.WriteString(s[last:loc[0]])
		last = loc[1]
		v, name, ok := lookup(m.refs[m.index(s[loc[0]:loc[1]])], getenv)
		if !ok {
			unset = append(unset, unsetRef{name: name, at: loc[0]})
		}
		out.WriteString(v)
	}
	out.WriteString(s[last:])
	return out.String(), unset
}

// index is the number of a placeholder the mask's own pattern matched.
func (m *envMask) index(mark string) int {
	i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(mark, m.prefix), "__"))
	return i
}
