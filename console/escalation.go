package console

import (
	"encoding/json"
	"fmt"

	"github.com/unstuck-dev/unstuck/signals"
)

// escalationView is an escalation node read as a sentence: the rung the
// ladder took, the loop that made it climb, and the note the run added
// (what the rung did), instead of the node's raw JSON.
type escalationView struct {
	ID, Rung, Why, Note string
	Status              signals.NodeStatus
}

// readEscalation reads an escalation node's arguments ({"rung", "loop"})
// and its output (the note, a JSON string). What it cannot read stays
// empty: a node written by another version still shows its id and status.
func readEscalation(n signals.Node) escalationView {
	v := escalationView{ID: n.ID, Status: n.Status}
	var args struct {
		Rung string `json:"rung"`
		Loop *struct {
			Kind    string `json:"kind"`
			Class   string `json:"class"`
			Period  int    `json:"period"`
			Repeats int    `json:"repeats"`
		} `json:"loop"`
	}
	if json.Unmarshal(n.Args, &args) == nil {
		v.Rung = args.Rung
		if l := args.Loop; l != nil {
			v.Why = fmt.Sprintf("%s loop of period %d repeated %d times", l.Kind, l.Period, l.Repeats)
			if l.Class != "" {
				v.Why += " (" + l.Class + " errors)"
			}
		}
	}
	if json.Unmarshal(n.Output, &v.Note) != nil {
		v.Note = string(n.Output)
	}
	return v
}
