package repair

// defaultFor is the value a missing property takes without a judgement:
// the schema's default, or the one value the schema allows (a const, an
// enum of one). Anything else is left for a model to infer.
func defaultFor(ns nodes) (any, string, bool) {
	if d, ok := ns.first("default"); ok {
		return deepCopy(d), "missing: the schema's default", true
	}
	if c, ok := ns.first("const"); ok {
		return deepCopy(c), "missing: the one value the schema allows", true
	}
	if e, ok := ns.first("enum"); ok {
		if list, ok := e.([]any); ok && len(list) == 1 {
			return deepCopy(list[0]), "missing: the one value the schema allows", true
		}
	}
	return nil, "", false
}
