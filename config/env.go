package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// envRef matches "$${" (an escaped, literal "${") or a reference
// ${NAME} / ${NAME:-default}. Anything else, "${" included, is plain text.
var envRef = regexp.MustCompile(`\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// unsetMark stands in for a variable that is not set and has no default.
// Such a reference is only an error where YAML keeps it, in a key or a
// value; in a comment (CONTRACT.md's own example has "${ENV}" in one) it
// is harmless. The mark is plain letters, digits and underscores, so it
// parses the same in every YAML context, and the numbered occurrence
// maps it back to the variable and its line.
var unsetMark = regexp.MustCompile(`__unstuck_unset_env_([0-9]+)__`)

// unsetVar is one reference to an unset variable without default.
type unsetVar struct {
	name string
	line int
}

// expandEnv replaces the variable references of a file's text with the
// environment's values, before YAML sees it, so "${VAR}" works anywhere:
// in a URL, a number, a whole flow mapping. As in a shell, the default
// of ${VAR:-default} applies when VAR is unset or empty.
func expandEnv(data []byte, getenv func(string) (string, bool)) ([]byte, []unsetVar) {
	var out bytes.Buffer
	var unset []unsetVar
	last, line := 0, 1
	for _, m := range envRef.FindAllSubmatchIndex(data, -1) {
		line += bytes.Count(data[last:m[0]], []byte("\n"))
		out.Write(data[last:m[0]])
		last = m[1]
		if m[1]-m[0] == 3 && string(data[m[0]:m[1]]) == "$${" {
			out.WriteString("${")
			continue
		}
		name := string(data[m[2]:m[3]])
		v, ok := getenv(name)
		switch {
		case m[4] >= 0 && (!ok || v == ""):
			out.Write(data[m[6]:m[7]])
		case ok:
			out.WriteString(v)
		default:
			fmt.Fprintf(&out, "__unstuck_unset_env_%d__", len(unset))
			unset = append(unset, unsetVar{name: name, line: line})
		}
		// A default may span lines; keep the count exact.
		line += bytes.Count(data[m[0]:m[1]], []byte("\n"))
	}
	out.Write(data[last:])
	return out.Bytes(), unset
}

// unsetErrors reports the unset variables whose mark survived into the
// parsed document, once each, in the order they appear.
func unsetErrors(file string, doc *yaml.Node, unset []unsetVar) []error {
	if len(unset) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var errs []error
	walk(doc, nil, func(p path, n *yaml.Node) {
		if n.Kind != yaml.ScalarNode {
			return
		}
		for _, m := range unsetMark.FindAllStringSubmatch(n.Value, -1) {
			i, err := strconv.Atoi(m[1])
			if err != nil || i >= len(unset) || seen[i] {
				continue
			}
			seen[i] = true
			u := unset[i]
			errs = append(errs, &Error{File: file, Path: p.String(), Line: u.line,
				Reason: fmt.Sprintf("environment variable %s is not set (write ${%s:-default} to give a default)", u.name, u.name)})
		}
	})
	return errs
}
