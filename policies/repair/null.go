package repair

// dropNullReason is why a null was taken out.
const dropNullReason = "null for an optional property the schema gives no null: left out, as absent"

// dropNull takes out a null given for an optional property whose schema
// does not allow null ({"reference": None} from a Python-minded model).
// Certain: null says "no value", and an optional property without a
// value is one left out; a required one is not (which value it needs is
// a judgement). Newest rules only: RulesFirst left it to the model.
func (f *fixer) dropNull(steps []string, v any) []edit {
	if v != nil || len(steps) == 0 || f.opts.Rules == RulesFirst {
		return nil
	}
	parentSteps, name := steps[:len(steps)-1], steps[len(steps)-1]
	parent, _ := get(f.args, parentSteps)
	if _, ok := parent.(map[string]any); !ok {
		return nil
	}
	for _, n := range f.doc.at(parentSteps) {
		switch required := n["required"].(type) {
		case []any:
			for _, r := range required {
				if r == name {
					return nil
				}
			}
		case []string:
			if contains(required, name) {
				return nil
			}
		}
	}
	return []edit{{at: steps, remove: true, applied: Applied{
		Strategy: StrategyRemoveProperty, Path: pointer(steps), Before: nil, Reason: dropNullReason}}}
}
