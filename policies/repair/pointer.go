package repair

import (
	"strconv"
	"strings"
)

// Locations inside arguments are held as unescaped JSON Pointer steps
// (object keys or array indices), as the schema validator reports them;
// pointer renders them for people and the trace.

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer is the JSON Pointer (RFC 6901) of steps. The root, "" in the
// RFC, is written "/" as config.Violation writes it.
func pointer(steps []string) string {
	if len(steps) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range steps {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(s))
	}
	return b.String()
}

// child is steps plus one more step, in a fresh slice.
func child(steps []string, step string) []string {
	out := make([]string, len(steps), len(steps)+1)
	copy(out, steps)
	return append(out, step)
}

// index reads an array step: a plain decimal index within n.
func index(step string, n int) (int, bool) {
	if step == "" || (len(step) > 1 && step[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(step)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// get is the value at steps inside root.
func get(root any, steps []string) (any, bool) {
	v := root
	for _, s := range steps {
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[s]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, ok := index(s, len(c))
			if !ok {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// set replaces (or adds, in an object) the value at steps; the root
// itself is never replaced.
func set(root any, steps []string, value any) bool {
	if len(steps) == 0 {
		return false
	}
	parent, ok := get(root, steps[:len(steps)-1])
	if !ok {
		return false
	}
	last := steps[len(steps)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = value
		return true
	case []any:
		i, ok := index(last, len(p))
		if !ok {
			return false
		}
		p[i] = value
		return true
	}
	return false
}

// remove deletes the object member at steps.
func remove(root any, steps []string) bool {
	if len(steps) == 0 {
		return false
	}
	parent, ok := get(root, steps[:len(steps)-1])
	if !ok {
		return false
	}
	p, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := p[steps[len(steps)-1]]; !ok {
		return false
	}
	delete(p, steps[len(steps)-1])
	return true
}
