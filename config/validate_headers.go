package config

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// engineHeaders are set by the tool activity on every call: a config
// cannot replace them, since the tool relies on them (Idempotency-Key,
// Unstuck-Workflow-Id, the JSON Content-Type) or Go sets them itself
// (Host).
var engineHeaders = []string{"Idempotency-Key", "Unstuck-Workflow-Id", "Content-Type", "Host"}

// headers checks an HTTP tool's headers: names HTTP accepts and the
// engine does not set, values without line breaks. Their variables were
// checked while expanding (expandTree).
func (c *checker) headers(p path, hs map[string]string) {
	names := make([]string, 0, len(hs))
	for k := range hs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch {
		case !validHeaderName(k):
			c.add(p.key(k), "invalid header name %q: use letters, digits and !#$%%&'*+-.^_`|~", k)
		case slices.Contains(engineHeaders, http.CanonicalHeaderKey(k)):
			c.add(p.key(k), "header %s is set by unstuck on every call and cannot be configured", http.CanonicalHeaderKey(k))
		case strings.ContainsAny(hs[k], "\r\n\x00"):
			c.add(p.key(k), "a header value cannot hold a line break or NUL")
		}
	}
}

// validHeaderName reports whether s is an HTTP field name: a token of
// RFC 9110 (golang.org/x/net's httpguts is only an indirect dependency).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}
