package approvalinbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
)

// Shape is the shape of a call's arguments (policies.ArgShape): its
// group, with its tool.
func Shape(args json.RawMessage) string { return policies.ArgShape(args) }

// groupIDLen is the hex digits of a group id: short enough to type, and
// 40 bits keep two groups of one inbox apart.
const groupIDLen = 10

// GroupID names the group of a tool and an argument shape: a short hash of
// both, the same for every listing, so a person can list, then answer the
// group with its id.
func GroupID(tool, shape string) string {
	sum := sha256.Sum256([]byte(tool + "\x00" + shape))
	return hex.EncodeToString(sum[:])[:groupIDLen]
}

// ValidGroupID says whether id has the form of a group id, so a typo is
// told apart before anything is listed.
func ValidGroupID(id string) bool {
	if len(id) != groupIDLen {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}
