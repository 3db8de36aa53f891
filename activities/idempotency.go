package activities

import (
	"bytes"
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

// argsOrEmpty treats absent arguments (nil, or null after a trip through
// Temporal's payloads) as the empty object.
func argsOrEmpty(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}
