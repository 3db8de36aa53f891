package mcptools

import (
	"strings"
	"testing"
)

// MCP server headers expand as HTTP tool headers do (config.ExpandEnv):
// a default, an escaped ${, and a lone $ kept as written; an unset
// variable is an error naming the header and the variable only.
func TestHTTPTransportHeaders(t *testing.T) {
	getenv := func(name string) (string, bool) {
		if name == "TOKEN" {
			return "s3cret", true
		}
		return "", false
	}
	cases := []struct {
		name, value, want, err string
	}{
		{"a variable", "Bearer ${TOKEN}", "Bearer s3cret", ""},
		{"a default of an unset variable", "Bearer ${DEV_TOKEN:-dev}", "Bearer dev", ""},
		{"an escaped ${", "$${X}", "${X}", ""},
		{"a lone $ is not a reference", "abc$def", "abc$def", ""},
		{"$VAR without braces is not a reference", "key $TOKEN", "key $TOKEN", ""},
		{"an unset variable", "Bearer ${MISSING}", "", "header Authorization uses ${MISSING}, which is not set"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := httpTransport(ServerConfig{Name: "web", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": tc.value}}, getenv)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "Bearer") || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("the error quotes the header's value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := tr.HTTPClient.Transport.(*headerTransport).headers.Get("Authorization")
			if got != tc.want {
				t.Fatalf("Authorization = %q, want %q", got, tc.want)
			}
		})
	}
}
