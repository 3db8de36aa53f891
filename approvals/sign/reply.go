package sign

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// Reply is what a signed reply proves: the run (its chain and workflow
// id), the human node it answers (a graph's human node or the ladder's
// human rung), its text and output, and who replies. A reply's message
// starts with its own word, so a signed approval never reads as a reply.
type Reply struct {
	Chain, Workflow, Node string
	Text                  string
	Output                json.RawMessage
	By                    string
}

// ForReply is the reply req makes to human node of the run.
func ForReply(chain, workflow, node string, req signals.ReplyRequest) Reply {
	return Reply{Chain: chain, Workflow: workflow, Node: node, Text: req.Text, Output: req.Output, By: req.By}
}

// ReplyMessage is the canonical message a signature of reply r signs.
func ReplyMessage(r Reply, signer string, at int64) ([]byte, error) {
	output, err := canonical(r.Output)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return json.Marshal([]string{"unstuck-reply", version, r.Chain, r.Workflow, r.Node, r.Text, output, r.By, signer, fmt.Sprint(at)})
}

// SignReply signs r as signer at time at, with signer's private key.
func SignReply(key ed25519.PrivateKey, r Reply, signer string, at time.Time) (string, error) {
	return signWith(key, signer, at, func(signer string, at int64) ([]byte, error) { return ReplyMessage(r, signer, at) })
}
