package policies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DecodeJSON reads exactly one JSON value with numbers as json.Number (so
// they keep their text) and refuses anything after it: "{} junk" is not
// "{}". The workflow, the repairs and the keys all read JSON this way.
func DecodeJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// CanonicalJSON rewrites a JSON document with sorted object keys and no
// insignificant space, so equal arguments have equal bytes (for
// idempotency keys and call signatures). Numbers keep their text.
func CanonicalJSON(doc []byte) ([]byte, error) {
	v, err := DecodeJSON(doc)
	if err != nil {
		return nil, err
	}
	// encoding/json writes map keys in sorted order.
	return json.Marshal(v)
}
