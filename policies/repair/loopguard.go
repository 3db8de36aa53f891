package repair

import "crypto/sha256"

// seen remembers every argument set a repair has produced, by the hash of
// its canonical JSON. Repairs chosen one violation at a time can undo each
// other (A -> B -> A: a string made a number for one branch of a schema,
// then a string again for another); coming back to a set already tried
// means going round in circles, so the repair stops there.
type seen map[[sha256.Size]byte]bool

// add records an argument set and reports whether it is new.
func (s seen) add(canonicalJSON []byte) bool {
	h := sha256.Sum256(canonicalJSON)
	if s[h] {
		return false
	}
	s[h] = true
	return true
}
