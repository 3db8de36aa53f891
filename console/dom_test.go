package console

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// el is an element of a parsed page, for asserting on the DOM contract
// rather than on the markup's spelling.
type el struct{ n *html.Node }

func parse(t *testing.T, body string) el {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	return el{doc}
}

// attr is the element's attribute (empty when absent).
func (e el) attr(name string) string {
	for _, a := range e.n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func (e el) hasClass(c string) bool {
	for _, f := range strings.Fields(e.attr("class")) {
		if f == c {
			return true
		}
	}
	return false
}

// text is the element's text, whitespace collapsed.
func (e el) text() string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(e.n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// all is every descendant element with tag (any tag when empty) whose
// attributes have the given values ("class" matches one class).
func (e el) all(tag string, attrs ...string) []el {
	var out []el
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) && matches(el{n}, attrs) {
			out = append(out, el{n})
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for c := e.n.FirstChild; c != nil; c = c.NextSibling {
		walk(c)
	}
	return out
}

func matches(e el, attrs []string) bool {
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i] == "class" {
			if !e.hasClass(attrs[i+1]) {
				return false
			}
		} else if e.attr(attrs[i]) != attrs[i+1] {
			return false
		}
	}
	return true
}

// one is the single element matching, failing the test otherwise.
func (e el) one(t *testing.T, tag string, attrs ...string) el {
	t.Helper()
	found := e.all(tag, attrs...)
	require.Len(t, found, 1, "want one <%s %v>", tag, attrs)
	return found[0]
}
