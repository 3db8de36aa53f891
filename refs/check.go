package refs

// The roots of a check's references: a tool's verify read-back names
// the arguments of the call it checks and that call's result
// (†args.id, †result.confirmation). A model's call cannot use them.
const (
	RootArgs   = "args"
	RootResult = "result"
)

var checkRoots = []string{RootArgs, RootResult}

// ParseCheck reads a string of a read-back's arguments as Parse reads a
// call's, with the roots †args and †result.
func ParseCheck(s string) (ref Ref, ok bool, err error) { return parseIn(s, checkRoots) }

// ResolveCheck answers a copy of a read-back's arguments with every
// reference replaced by its value in the checked call's arguments or
// result, or the problems, as Resolve does.
func ResolveCheck(readArgs any, args, result any) (any, []error) {
	var errs []error
	lookup := func(p Path) (any, bool) {
		if p.Root == RootArgs {
			return at(args, p.Steps)
		}
		return at(result, p.Steps)
	}
	out := resolver{roots: checkRoots, in: "the checked call", lookup: lookup}.resolve(readArgs, "", &errs)
	return out, errs
}

// FindCheck is Find for a read-back's arguments: every string that is a
// check reference, malformed ones with their error.
func FindCheck(v any) []Found { return findIn(v, checkRoots) }
