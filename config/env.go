package config

import "regexp"

// envRef matches "$${" (an escaped, literal "${") or a reference
// ${NAME} / ${NAME:-default}. Anything else, "${" included, is plain text.
// A default cannot span lines: the loader masks references in the file's
// text before parsing, and the mask must keep every line where it was.
var envRef = regexp.MustCompile(`\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}\n]*))?\}`)

// unsetRef is a reference to a variable that is not set and has no
// default, with its byte offset in the text it was found in (to tell its
// line inside a multi-line value).
type unsetRef struct {
	name string
	at   int
}

// lookup is the value of one reference or escape matched by envRef. As in
// a shell, the default of ${VAR:-default} applies when VAR is unset or
// empty. For an unset variable without default it answers its name and
// ok false.
func lookup(ref string, getenv func(string) (string, bool)) (v, name string, ok bool) {
	if ref == "$${" {
		return "${", "", true
	}
	m := envRef.FindStringSubmatchIndex(ref)
	name = ref[m[2]:m[3]]
	v, set := getenv(name)
	switch {
	case m[4] >= 0 && (!set || v == ""):
		return ref[m[6]:m[7]], name, true
	case set:
		return v, name, true
	}
	return "", name, false
}

// ExpandEnv expands ${VAR}, ${VAR:-default} and $${ in s, as the loader
// does in the config's string values, and answers the names of the
// variables that are unset without a default (they expand to nothing).
// The tool activity uses it for header values, which the loader leaves
// as written so that their secrets are read only when a call is sent.
func ExpandEnv(s string, getenv func(string) (string, bool)) (string, []string) {
	var unset []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		v, name, ok := lookup(ref, getenv)
		if !ok {
			unset = append(unset, name)
		}
		return v
	})
	return out, unset
}
