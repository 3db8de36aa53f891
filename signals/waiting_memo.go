package signals

import (
	"encoding/json"
	"time"
)

// MemoWaiting is the memo key under which a run lists its calls waiting
// for approval (an addition to docs/contract.md), so the inbox reads a
// fleet in one visibility listing instead of a status query per run.
const MemoWaiting = "unstuck_waiting"

// WaitingMemo is the memo MemoWaiting: the calls waiting, and how many
// more wait than are listed (the inbox then reads the run's status).
type WaitingMemo struct {
	Calls []WaitingCall `json:"calls"`
	More  int           `json:"more,omitempty"`
}

// WaitingCall is one call of WaitingMemo: its shape of arguments
// (policies.ArgShape) and, when small, the arguments themselves.
type WaitingCall struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Shape  string          `json:"shape"`
	Args   json.RawMessage `json:"args,omitempty"`
	Since  time.Time       `json:"since"`
	// Deadline is when its wait times out (the inbox flags a call past
	// half of it overdue).
	Deadline time.Time `json:"deadline,omitzero"`
	// Answering are the groups whose members may answer it now (a tool
	// whose approval names by:), for the inbox's --group.
	Answering []string `json:"answering,omitempty"`
}
