package repair

import (
	"fmt"
	"sort"
)

// A property the schema forbids is usually one of two things: noise the
// tool cannot use ("notes"), or a declared property under a misspelt name
// ("departureDate" for "departure_date", "pasengers"). Removing the second
// would lose its value and let a default take its place, so it is renamed.

// rename is where a forbidden property goes: the declared property it
// misspells, or "" to remove it.
type rename struct {
	from, to string
}

// placeExtras decides, for the forbidden properties of one object, which
// are renamed (to a declared property the object lacks, that no other
// forbidden property also claims) and which are removed. Two claims on
// one name leave both where they are: which is meant is a judgement.
func placeExtras(obj map[string]any, extras, declared []string) (out []rename, held []string) {
	var absent []string
	for _, d := range declared {
		if _, ok := obj[d]; !ok {
			absent = append(absent, d)
		}
	}
	sort.Strings(extras)
	claims := map[string]int{}
	targets := make([]string, len(extras))
	for i, e := range extras {
		if j, _, ok := bestMatch(e, absent, false); ok {
			targets[i] = absent[j]
			claims[absent[j]]++
		}
	}
	for i, e := range extras {
		switch {
		case targets[i] == "":
			out = append(out, rename{from: e})
		case claims[targets[i]] == 1:
			out = append(out, rename{from: e, to: targets[i]})
		default:
			held = append(held, e)
		}
	}
	return out, held
}

func renameReason(from, to string) string {
	return fmt.Sprintf("unknown property %q is a misspelling of the declared %q: renamed", from, to)
}

const removeReason = "the schema allows no such property: removed"
