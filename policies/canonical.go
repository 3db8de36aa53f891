package policies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// CanonicalJSON rewrites a JSON document with sorted object keys and no
// insignificant space, so equal arguments have equal bytes (for
// idempotency keys and call signatures). Numbers keep their text.
func CanonicalJSON(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// Trailing data would otherwise give "{} junk" the key of "{}".
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	// encoding/json writes map keys in sorted order.
	return json.Marshal(v)
}
