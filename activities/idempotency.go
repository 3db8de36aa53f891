package activities

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// IdempotencyKey is the Idempotency-Key of a call. It is stable across
// retries of one call; for an idempotent tool it is stable for the same
// workflow, tool and canonical arguments, so re-issuing an identical call
// (after an edit, say) lets the tool answer the recorded result.
func IdempotencyKey(workflowID, callID string, tool config.Tool, args json.RawMessage) (string, error) {
	h := sha256.New()
	h.Write([]byte(workflowID))
	h.Write([]byte{0})
	if tool.Effect == config.EffectIdempotent {
		canon, err := policies.CanonicalJSON(argsOrEmpty(args))
		if err != nil {
			return "", err
		}
		h.Write([]byte(tool.Name))
		h.Write([]byte{0})
		h.Write(canon)
	} else {
		h.Write([]byte(callID))
	}
	return hex.EncodeToString(h.Sum(nil)[:20]), nil
}

func argsOrEmpty(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	return args
}
