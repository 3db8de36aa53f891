package policies

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// DefaultVolatile are argument fields that differ between calls that are
// otherwise the same (clocks, request and trace ids, nonces, idempotency
// keys). Left in, they would make every repetition of a stuck call look
// new and hide the loop.
var DefaultVolatile = []string{"timestamp", "request_id", "requestId", "nonce", "trace_id", "idempotency_key"}

// Signature hashes parts into a short hex identity (64 bits of SHA-256,
// plenty for the few hundred events a window holds). Each part is length
// prefixed, so ("ab", "c") and ("a", "bc") differ.
func Signature(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// CanonicalSignature is the signature of a call: where it ran, which tool,
// its arguments without the volatile fields (at any depth) in canonical
// form, and its outcome (empty for the call's key). Arguments that are
// not JSON are taken as they are, so two different bad arguments still
// differ; blank arguments are the empty object, as models send either for
// a tool without parameters.
func CanonicalSignature(node, tool string, args []byte, outcome string, volatile []string) string {
	return Signature(node, tool, canonicalArgs(args, volatile), outcome)
}

func canonicalArgs(args []byte, volatile []string) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	doc := args
	if len(volatile) > 0 {
		stripped, err := withoutKeys(args, volatile)
		if err != nil {
			return string(args)
		}
		doc = stripped
	}
	// CanonicalJSON is the one definition of equal arguments (idempotency
	// keys use it too), so signatures follow it if it ever changes.
	canon, err := CanonicalJSON(doc)
	if err != nil {
		return string(args)
	}
	return string(canon)
}

// maxArgsDepth bounds the nesting withoutKeys follows; deeper arguments
// are taken as raw text.
const maxArgsDepth = 1000

// withoutKeys re-encodes a JSON document without the object members named
// in keys. It walks the token stream rather than a decoded map, so it
// never ranges over a map (workflow code must not).
func withoutKeys(doc []byte, keys []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeWithout(dec, keys, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return json.Marshal(v)
}

func decodeWithout(dec *json.Decoder, keys []string, depth int) (any, error) {
	if depth > maxArgsDepth {
		return nil, errors.New("arguments nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("object key %v is not a string", kt)
			}
			val, err := decodeWithout(dec, keys, depth+1)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(keys, key) {
				obj[key] = val
			}
		}
		_, err := dec.Token() // the closing brace
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			val, err := decodeWithout(dec, keys, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		_, err := dec.Token() // the closing bracket
		return arr, err
	case json.Delim('}'), json.Delim(']'):
		return nil, fmt.Errorf("unexpected %v", tok)
	default:
		return tok, nil // string, json.Number, bool or nil
	}
}
