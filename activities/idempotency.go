package activities

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// IdempotencyKey is the Idempotency-Key of a call scheduled without its
// chain (by a version before ChainIdempotencyKey): a hash of the workflow
// id and the call, or for an idempotent tool of the workflow id, tool and
// canonical arguments. Such a call, retried after an upgrade, keeps it.
func IdempotencyKey(workflowID, callID string, tool config.Tool, args json.RawMessage) (string, error) {
	return ChainIdempotencyKey(workflowID, "", callID, tool, args)
}

// ChainIdempotencyKey is the Idempotency-Key of a call. chain is the first
// run id of the call's continue-as-new chain: it is the same across
// continue-as-new (node ids keep counting there) and differs for a new
// run that reuses the workflow id (node ids start again at n1), so two
// such runs never share a key. The key is stable across retries of one
// call; for an idempotent tool it is stable for the same chain, tool and
// canonical arguments, so re-issuing an identical call (after an edit,
// say) lets the tool answer the recorded result. An empty chain (a call
// scheduled by an earlier version) gives the key that version gave.
func ChainIdempotencyKey(workflowID, chain, callID string, tool config.Tool, args json.RawMessage) (string, error) {
	h := sha256.New()
	if chain != "" {
		// Tagged, so no key with a chain equals one without.
		h.Write([]byte("chain\x00"))
	}
	h.Write([]byte(workflowID))
	h.Write([]byte{0})
	if chain != "" {
		h.Write([]byte(chain))
		h.Write([]byte{0})
	}
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
