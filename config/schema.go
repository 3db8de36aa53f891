package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is where a compiled schema lives. It is a made-up scheme so
// that a relative $ref resolves to a URL the loader refuses, never to a
// file of the worker's directory.
const schemaURL = "mem:///schema.json"

// SchemaError is why a JSON Schema does not compile. At is the JSON
// Pointer steps, inside the schema, of the failing keyword when known.
type SchemaError struct {
	At     []string
	Reason string
}

func (e *SchemaError) Error() string {
	if len(e.At) == 0 {
		return "invalid JSON Schema: " + e.Reason
	}
	return fmt.Sprintf("invalid JSON Schema at /%s: %s", strings.Join(e.At, "/"), e.Reason)
}

// CompileSchema compiles a JSON Schema held as decoded YAML or JSON, by
// draft 2020-12 unless it names another $schema, with format assertions
// on (so "format": "date" is checked, as users expect of a schema they
// wrote). It does no I/O: any $ref that is not inside the document is
// refused, since this also runs in deterministic workflow code. where
// names the schema in the error, which wraps a *SchemaError.
func CompileSchema(where string, doc map[string]any) (*jsonschema.Schema, error) {
	s, err := compileSchema(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s, nil
}

func compileSchema(doc map[string]any) (*jsonschema.Schema, *SchemaError) {
	if doc == nil {
		doc = map[string]any{}
	}
	// A JSON round trip turns YAML's values (int, nested maps) into the
	// JSON values the compiler expects, and refuses what JSON cannot hold
	// (non-string keys, NaN).
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, &SchemaError{Reason: notJSON(err)}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noRemote{})
	if err := c.AddResource(schemaURL, v); err != nil {
		return nil, &SchemaError{Reason: err.Error()}
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, schemaProblem(err)
	}
	return s, nil
}

// noRemote is the schema loader: it loads nothing. The draft metaschemas
// are built into the library and never reach it.
type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("cannot load %q: a schema must be self-contained ($ref and $schema may not name another document)",
		strings.TrimPrefix(url, "mem:///"))
}

// notJSON says why a decoded YAML value has no JSON form.
func notJSON(err error) string {
	var te *json.UnsupportedTypeError
	if errors.As(err, &te) && te.Type.Kind() == reflect.Map {
		return "not plain JSON: object keys must be strings"
	}
	return "not plain JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

// schemaProblem turns a compile error into a one-line reason. A schema
// that breaks the metaschema is reported by its first failing keyword,
// with the keyword's location, rather than the library's indented tree.
func schemaProblem(err error) *SchemaError {
	var sv *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sv) && errors.As(sv.Err, &ve) {
		if u := firstLeaf(*ve.DetailedOutput()); u != nil {
			return &SchemaError{At: pointerSteps(u.InstanceLocation), Reason: u.Error.String()}
		}
	}
	var le *jsonschema.LoadURLError
	if errors.As(err, &le) && le.Err != nil {
		return &SchemaError{Reason: le.Err.Error()}
	}
	return &SchemaError{Reason: strings.ReplaceAll(strings.TrimPrefix(err.Error(), "jsonschema: "), schemaURL, "")}
}

// firstLeaf is the first innermost failure of a detailed output: the
// actual keyword at fault rather than the allOf or anyOf around it.
func firstLeaf(u jsonschema.OutputUnit) *jsonschema.OutputUnit {
	for _, c := range u.Errors {
		if l := firstLeaf(c); l != nil {
			return l
		}
	}
	if len(u.Errors) == 0 && u.Error != nil {
		return &u
	}
	return nil
}

// pointerSteps splits a JSON Pointer into its unescaped steps.
func pointerSteps(ptr string) []string {
	if ptr == "" || ptr == "/" {
		return nil
	}
	steps := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, s := range steps {
		steps[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return steps
}
