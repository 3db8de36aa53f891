package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Equal arguments have equal bytes: keys sorted at every depth, no
// insignificant space, numbers written as they were sent.
func TestCanonicalJSONNormalisesEqualDocuments(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"keys sorted", `{"b":1,"a":2,"c":3}`, `{"a":2,"b":1,"c":3}`},
		{"nested keys sorted", `{"z":{"y":1,"x":[{"d":1,"c":2}]},"a":null}`, `{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } }\n", `{"a":[1,2],"b":{}}`},
		{"array order kept", `[3,1,2]`, `[3,1,2]`},
		{"integer text kept", `{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
		{"decimal text kept", `{"n":1.50}`, `{"n":1.50}`},
		{"exponent text kept", `{"n":1e3,"m":-2.5E-7}`, `{"m":-2.5E-7,"n":1e3}`},
		{"negative zero kept", `-0`, `-0`},
		{"scalars", `"x"`, `"x"`},
		{"booleans and null", `[true,false,null]`, `[true,false,null]`},
		{"unicode escapes decoded", `{"s":"\u00e9"}`, `{"s":"é"}`},
		{"duplicate key: the last wins", `{"a":1,"a":2}`, `{"a":2}`},
		{"empty object", `{}`, `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalJSON([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

// Documents that differ only in key order and space are equal; documents
// that differ in value are not.
func TestCanonicalJSONEquality(t *testing.T) {
	a, err := CanonicalJSON([]byte(`{"from":"NYC","to":"LAX","pax":{"adults":2,"kids":0}}`))
	require.NoError(t, err)
	b, err := CanonicalJSON([]byte("{ \"pax\": {\"kids\": 0, \"adults\": 2},\n \"to\": \"LAX\", \"from\": \"NYC\" }"))
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))

	c, err := CanonicalJSON([]byte(`{"from":"NYC","to":"SFO","pax":{"adults":2,"kids":0}}`))
	require.NoError(t, err)
	require.NotEqual(t, string(a), string(c))
}

func TestCanonicalJSONRefusesInvalidJSON(t *testing.T) {
	for _, in := range []string{``, `   `, `{`, `{"a":}`, `{a:1}`, `[1,2`, `'x'`, `NaN`, `{"a":1,}`} {
		t.Run(in, func(t *testing.T) {
			_, err := CanonicalJSON([]byte(in))
			require.Error(t, err)
		})
	}
}

// KNOWN BUG (policies/canonical.go, CanonicalJSON): the decoder reads only
// the first JSON value, so trailing data is silently dropped and
// `{"a":1} junk` gets the canonical form (and idempotency key) of
// `{"a":1}`. Remove the Skip once CanonicalJSON checks for io.EOF after
// the value.
func TestCanonicalJSONRefusesTrailingData(t *testing.T) {
	for _, in := range []string{`{"a":1} junk`, `{"a":1}{"b":2}`, `1 2`, `{} }`} {
		_, err := CanonicalJSON([]byte(in))
		require.Error(t, err, in)
	}
}
