package config

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The reference of docs/configuration.md ("## Reference") must name every
// key of the agent config file and no other, so it cannot drift from the
// types: TestConfigReferenceMatchesTypes walks the types from File by
// reflection, as the YAML decoder reads them, and compares the keys with
// the first column of the reference's tables. Each row has four columns
// (key, type, default, what it does), none empty, and its type column
// says what the Go type is (typeWord: integer, number, boolean, duration,
// block, list, map, JSON).
//
// A key is written as its dotted path from the top of the file, in
// backticks, e.g. `agents[].policies.loop.window`:
//
//   - every yaml key has a row of its own, a block (model, policies.loop)
//     and a list (tools, agents[].tools) as well as each key inside it;
//   - an item of a list of blocks is `[]`: `tools[].http.url`;
//   - a map whose values are blocks has a row for itself and one for each
//     key of its values, its own key written as a <placeholder> in angle
//     brackets: `prices.models`, `prices.models.<model>.input`. Any
//     placeholder matches (the test reads each as <>), so the reference
//     names it for a reader;
//   - a map of plain values (`tools[].http.headers`, `prices.tools`,
//     `budget.tool_calls_per_tool`) is one row, what its keys and values
//     are being said in its type and meaning; a free-form JSON value
//     (`tools[].parameters`, a JSON Schema, graph `args`) is one row too;
//   - a type that reads itself from YAML (Duration, with UnmarshalYAML)
//     is one value, whatever it holds inside;
//   - fields the file cannot set (yaml:"-") have no row;
//   - a field without a yaml tag is the lower-cased field name, and an
//     ,inline struct adds its keys to its parent's, as yaml does.
func TestConfigReferenceMatchesTypes(t *testing.T) {
	types := configKeys(reflect.TypeFor[File]())
	keys := make([]string, len(types))
	for i, k := range types {
		keys[i] = k.path
	}
	// The walk itself is checked, so a walk that found nothing (or lost a
	// kind of key) cannot make the comparison pass vacuously.
	for _, want := range []string{
		"model", "model.retry.max_attempts", "model.fallbacks[].name",
		"tools[].http.headers", "tools[].errors[].class", "agents[].tools",
		"agents[].policies.loop.time_window.within", "agents[].graph.nodes.<>.tool",
		"prices.models.<>.input", "prices.tools", "worker.sticky_cache_size",
		"budget.cost.currency", "agents[].policies.budget.wall_time",
	} {
		if !slices.Contains(keys, want) {
			t.Errorf("the walk of the config types did not find %s: fix configKeys", want)
		}
	}
	for _, notKey := range []string{"model.provider", "model.own_endpoint", "tools[].mcp.schema_error"} {
		if slices.Contains(keys, notKey) {
			t.Errorf("the walk of the config types found %s, which is yaml:\"-\"", notKey)
		}
	}

	rows, err := referenceRows("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]int{}
	for _, r := range rows {
		key := placeholder.ReplaceAllString(r.key, "<>")
		if line, dup := documented[key]; dup {
			t.Errorf("docs/configuration.md:%d: %s has a row already (line %d)", r.line, r.key, line)
		}
		documented[key] = r.line
		if len(r.cells) != len(referenceColumns) {
			t.Errorf("docs/configuration.md:%d: %s: %d columns, want %d (%s)", r.line, r.key, len(r.cells), len(referenceColumns), strings.Join(referenceColumns, ", "))
			continue
		}
		for i, cell := range r.cells {
			if cell == "" {
				t.Errorf("docs/configuration.md:%d: %s: the %s column is empty", r.line, r.key, referenceColumns[i])
			}
		}
		if i := slices.IndexFunc(types, func(k configKey) bool { return k.path == key }); i >= 0 {
			if want := typeWord(types[i].typ); !strings.Contains(strings.ToLower(r.cells[1]), want) {
				t.Errorf("docs/configuration.md:%d: %s is of Go type %s, but its type column says %q: say %q in it", r.line, r.key, types[i].typ, r.cells[1], want)
			}
		}
	}
	for _, k := range keys {
		if _, ok := documented[k]; !ok {
			t.Errorf("docs/configuration.md: the reference has no row for %s, a key of the config types: add one", k)
		}
	}
	for _, r := range rows {
		if key := placeholder.ReplaceAllString(r.key, "<>"); !slices.Contains(keys, key) {
			t.Errorf("docs/configuration.md:%d: the reference names %s, which is not a key of the config types: remove or rename the row", r.line, r.key)
		}
	}
	if t.Failed() {
		t.Logf("the config types have %d keys, the reference %d rows", len(keys), len(rows))
	}
}

// referenceColumns are the columns of the reference's tables.
var referenceColumns = []string{"key", "type", "default", "what it does"}

// placeholder is a map key in a reference path: <model>, <node>.
var placeholder = regexp.MustCompile(`<[^<>]*>`)

var yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// configKey is a key of the config file: its path and its Go type.
type configKey struct {
	path string
	typ  reflect.Type
}

// configKeys answers every key of the YAML a value of type t reads, in the
// order of the fields (see TestConfigReferenceMatchesTypes for how a path
// is written).
func configKeys(t reflect.Type) []configKey {
	var keys []configKey
	var walk func(prefix string, t reflect.Type, seen []reflect.Type)
	walk = func(prefix string, t reflect.Type, seen []reflect.Type) {
		if slices.Contains(seen, t) {
			panic("configKeys: the config types are recursive at " + prefix + " (" + t.String() + "): decide how the reference writes that")
		}
		seen = append(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if f.PkgPath != "" && !f.Anonymous {
				continue // unexported: yaml ignores it
			}
			tag := f.Tag.Get("yaml")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if slices.Contains(strings.Split(opts, ","), "inline") {
				walk(prefix, derefType(f.Type), seen)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			key := prefix + name
			keys = append(keys, configKey{key, f.Type})
			// What the key's value holds: a block, a list of blocks, a
			// map of blocks; anything else is one value.
			ft := derefType(f.Type)
			switch {
			case readsItself(ft):
			case ft.Kind() == reflect.Struct:
				walk(key+".", ft, seen)
			case (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && isBlock(ft.Elem()):
				walk(key+"[].", derefType(ft.Elem()), seen)
			case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && isBlock(ft.Elem()):
				walk(key+".<>.", derefType(ft.Elem()), seen)
			}
		}
	}
	walk("", derefType(t), nil)
	return keys
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// typeWord is what the type column of a key of type t must say, in any
// case, so a key whose type changes (an integer becoming a duration, a
// value becoming a block) needs its row changed too; "" for a string,
// which the reference writes by what it holds (a URL, a rate, a name).
func typeWord(t reflect.Type) string {
	t = derefType(t)
	switch {
	case t == reflect.TypeFor[Duration]():
		return "duration"
	case t == reflect.TypeFor[Verify]():
		return "string" // or a read-back block: the row says both
	case t == reflect.TypeFor[Approval]():
		return "block" // or one of never, always: the row says both
	case readsItself(t):
		panic("typeWord: say how the reference writes " + t.String())
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct:
		return "block"
	case reflect.Slice, reflect.Array:
		if isBlock(t.Elem()) {
			return "list of blocks"
		}
		return "list"
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "json" // a JSON Schema, a JSON object
		}
		return "map"
	}
	return ""
}

// readsItself says whether t decodes itself from YAML (a Duration).
func readsItself(t reflect.Type) bool {
	return t.Implements(yamlUnmarshaler) || reflect.PointerTo(t).Implements(yamlUnmarshaler)
}

// isBlock says whether a value of type t is a block of keys.
func isBlock(t reflect.Type) bool {
	t = derefType(t)
	return t.Kind() == reflect.Struct && !readsItself(t)
}

// referenceRow is one row of the reference's tables.
type referenceRow struct {
	line  int
	key   string   // the first column without its backticks
	cells []string // every column, trimmed
}

// referenceCell is the first column of a row: a path in backticks.
var referenceCell = regexp.MustCompile("^`([^`]+)`$")

// referenceRows reads the rows of the tables under "## Reference" of a
// Markdown file, up to the next "## " heading, skipping each table's
// header and separator rows.
func referenceRows(file string) ([]referenceRow, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []referenceRow
	in, inTable := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.TrimSpace(line) == "## Reference"
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		case !inTable: // the header row
			inTable = true
			continue
		case strings.HasPrefix(line, "|-") || strings.HasPrefix(line, "| -") || strings.HasPrefix(line, "|:"):
			continue
		}
		cells := splitRow(line)
		m := referenceCell.FindStringSubmatch(cells[0])
		if m == nil {
			return nil, fmt.Errorf("%s:%d: the first column must be a key's path in backticks, got %q", file, n, cells[0])
		}
		rows = append(rows, referenceRow{line: n, key: m[1], cells: cells})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf(`%s: no "## Reference" section with tables`, file)
	}
	return rows, nil
}

// splitRow splits a Markdown table row into its cells, trimmed; a `\|`
// inside a cell is a | of the cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// TestConfigKeysWalk checks the walk on the shapes the config types may
// take, so a new shape is written the way the reference's rules say.
func TestConfigKeysWalk(t *testing.T) {
	type leaf struct {
		N int `yaml:"n"`
	}
	type Embedded struct {
		E string `yaml:"e"`
	}
	type shapes struct {
		Embedded `yaml:",inline"`
		Plain    string
		Skipped  string            `yaml:"-"`
		hidden   string            //nolint:unused // unexported: not a key
		Ptr      *leaf             `yaml:"ptr,omitempty"`
		List     []leaf            `yaml:"list"`
		PtrList  []*leaf           `yaml:"ptr_list"`
		Words    []string          `yaml:"words"`
		Blocks   map[string]leaf   `yaml:"blocks"`
		Values   map[string]int    `yaml:"values"`
		Any      map[string]any    `yaml:"any"`
		Wait     Duration          `yaml:"wait"`
		WaitPtr  *Duration         `yaml:"wait_ptr"`
		Nested   struct{ In bool } `yaml:"nested"`
	}
	var got []string
	for _, k := range configKeys(reflect.TypeFor[shapes]()) {
		got = append(got, k.path)
	}
	want := []string{"e", "plain", "ptr", "ptr.n", "list", "list[].n", "ptr_list", "ptr_list[].n", "words",
		"blocks", "blocks.<>.n", "values", "any", "wait", "wait_ptr", "nested", "nested.in"}
	if !slices.Equal(got, want) {
		t.Errorf("configKeys:\n got %v\nwant %v", got, want)
	}
	_ = shapes{}.hidden
}
