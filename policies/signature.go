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
	"strconv"

	"github.com/unstuck-dev/unstuck/config"
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
		stripped, err := withoutFields(args, readVolatile(volatile))
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

// maxArgsDepth bounds the nesting withoutFields follows; deeper arguments
// are taken as raw text.
const maxArgsDepth = 1000

// volatileFields are the fields a signature leaves out: names wherever
// they appear, pointers (as reference tokens) at one place only.
type volatileFields struct {
	names    []string
	pointers [][]string
}

// readVolatile sorts volatile entries into names and JSON pointers
// (config.VolatileField); an entry that is not a valid pointer (config
// validation refuses it) is taken as a name, so nothing panics.
func readVolatile(entries []string) volatileFields {
	var v volatileFields
	for _, e := range entries {
		if tokens, pointer, err := config.VolatileField(e); pointer && err == nil {
			v.pointers = append(v.pointers, tokens)
		} else {
			v.names = append(v.names, e)
		}
	}
	return v
}

// drops says whether the member at path (key last) is volatile.
func (v volatileFields) drops(path []string) bool {
	if slices.Contains(v.names, path[len(path)-1]) {
		return true
	}
	for _, p := range v.pointers {
		if slices.Equal(p, path) {
			return true
		}
	}
	return false
}

// withoutFields re-encodes a JSON document without its volatile members.
// It walks the token stream rather than a decoded map, so it never ranges
// over a map (workflow code must not).
func withoutFields(doc []byte, v volatileFields) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	val, err := decodeWithout(dec, v, nil, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return json.Marshal(val)
}

// decodeWithout decodes the next value, at path (reference tokens from
// the root; array elements by index), without its volatile members.
func decodeWithout(dec *json.Decoder, v volatileFields, path []string, depth int) (any, error) {
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
			at := append(path, key)
			val, err := decodeWithout(dec, v, at, depth+1)
			if err != nil {
				return nil, err
			}
			if !v.drops(at) {
				obj[key] = val
			}
		}
		_, err := dec.Token() // the closing brace
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for i := 0; dec.More(); i++ {
			val, err := decodeWithout(dec, v, append(path, strconv.Itoa(i)), depth+1)
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
