package repair

import (
	"strings"
	"unicode"
)

// Matching a near-miss to one of a known set of names (enum values,
// declared property names) in stages, from the surest to the loosest. A
// stage that finds two candidates stops the search: an ambiguous match
// is never guessed.

// Bounds on fuzzy matching, so a huge value or enum costs little.
const (
	maxMatchLen   = 256
	maxCandidates = 1024
)

// unitWords are generic nouns a model appends to a value: "business
// class", "economy seat", "express mode".
var unitWords = map[string]bool{
	"class": true, "cabin": true, "seat": true, "seats": true, "fare": true, "ticket": true,
	"tier": true, "level": true, "mode": true, "type": true, "plan": true, "option": true,
	"size": true, "category": true, "priority": true, "status": true, "room": true,
}

// fold lowercases s, splits camelCase, and makes every run of spaces,
// hyphens, underscores and punctuation one "_": "Premium-Economy",
// "premium economy" and "premiumEconomy" all fold to "premium_economy".
func fold(s string) string {
	var b strings.Builder
	sep := false
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				sep = true
			}
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(unicode.ToLower(r))
		default:
			sep = true
		}
		prev = r
	}
	return b.String()
}

// squash is fold without separators: "premiumeconomy".
func squash(s string) string { return strings.ReplaceAll(fold(s), "_", "") }

// dropUnit removes a trailing unit word from a folded value of two or
// more words.
func dropUnit(folded string) string {
	i := strings.LastIndexByte(folded, '_')
	if i > 0 && unitWords[folded[i+1:]] {
		return folded[:i]
	}
	return folded
}

// squashUnit is squash without a trailing unit word.
func squashUnit(s string) string { return strings.ReplaceAll(dropUnit(fold(s)), "_", "") }

// how a match was found, for the Applied reason.
const (
	byFolding  = "differs only in case, spacing or punctuation"
	byUnitWord = "differs by a trailing unit word"
	byDistance = "the one allowed value within a small edit distance"
)

// bestMatch finds the candidate s means: the same when folded, then when
// squashed, then without a trailing unit word, then the unique nearest
// within maxEdits. ok is false when none or several match.
func bestMatch(s string, cands []string, units bool) (int, string, bool) {
	if len(cands) > maxCandidates || len(s) > 4*maxMatchLen {
		return 0, "", false
	}
	// Each stage keys the value and the candidates, and looks for the
	// one candidate with the value's key. A unit word is dropped from
	// the value and compared with the candidates as they are, then with
	// theirs dropped too ("living room room" is "living_room").
	type stage struct {
		value, cand func(string) string
		how         string
	}
	stages := []stage{{fold, fold, byFolding}, {squash, squash, byFolding}}
	if units {
		stages = append(stages,
			stage{squashUnit, squash, byUnitWord},
			stage{squashUnit, squashUnit, byUnitWord})
	}
	for _, st := range stages {
		k := st.value(s)
		if k == "" {
			continue
		}
		found, n := -1, 0
		for i, c := range cands {
			if st.cand(c) == k {
				found, n = i, n+1
			}
		}
		switch n {
		case 0:
			continue
		case 1:
			return found, st.how, true
		default:
			return 0, "", false
		}
	}
	return nearest(squash(s), cands)
}

// nearest is the unique candidate at the smallest edit distance from s
// (squashed), if that distance is small for the candidate's length.
func nearest(s string, cands []string) (int, string, bool) {
	rs := []rune(s)
	if len(rs) == 0 || len(rs) > maxMatchLen {
		return 0, "", false
	}
	best, bestD, ties := -1, 1<<30, 0
	for i, c := range cands {
		cr := []rune(squash(c))
		limit := maxEdits(len(cr))
		if limit == 0 || len(cr) > maxMatchLen {
			continue
		}
		d := osa(rs, cr, limit)
		switch {
		case d > limit:
		case d < bestD:
			best, bestD, ties = i, d, 1
		case d == bestD:
			ties++
		}
	}
	if best < 0 || ties != 1 {
		return 0, "", false
	}
	return best, byDistance, true
}

// maxEdits is how far a misspelling of a word of n letters may be: two
// edits for five letters or more, one for three or four, none below (a
// short code one letter off is another code).
func maxEdits(n int) int {
	switch {
	case n >= 5:
		return 2
	case n >= 3:
		return 1
	}
	return 0
}

// osa is the optimal string alignment distance (Levenshtein, with a swap
// of two neighbours counted as one edit), or limit+1 once it is known to
// exceed limit.
func osa(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		// Every later cell comes from this row or, by a swap, the one
		// before plus one: past the limit in both, it stays past.
		if rowMin > limit && prevMin >= limit {
			return limit + 1
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}
