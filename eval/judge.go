package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Verdict is a judge agent's answer: whether an output answers its task,
// and why.
type Verdict struct {
	Pass bool   `json:"pass"`
	Why  string `json:"why"`
}

// Judgement is one judge run on an output: its workflow id, and its
// verdict or, when it gave none, why.
type Judgement struct {
	Run     string   `json:"run"`
	Verdict *Verdict `json:"verdict,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// VerdictSchema is the output schema of a judge run: a Verdict.
func VerdictSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"pass": map[string]any{"type": "boolean", "description": "whether the output answers the task"},
			"why":  map[string]any{"type": "string", "description": "why, in a sentence"},
		},
		"required":             []any{"pass", "why"},
		"additionalProperties": false,
	}
}

// IsJudged says whether c's outputs are judged by a judge agent.
func IsJudged(c *Case) bool {
	return c.Expect != nil && c.Expect.Match == MatchJudge
}

// WantsJudge says whether a run of c that ended in o, with diverged calls
// off the recording, is given to the judge: only when nothing else has
// failed it already.
func WantsJudge(c *Case, o Outcome, diverged int) bool {
	return IsJudged(c) && o.Status == StatusCompleted && diverged == 0
}

// JudgeTask is the task of a judge run on output, a run's output for c:
// the case's task and input, its reference answer if any, and the output.
func JudgeTask(c *Case, output any) string {
	var b strings.Builder
	b.WriteString("Judge whether an agent's output answers the task it was given. Judge from this text alone.\n\n")
	fmt.Fprintf(&b, "The task:\n%s\n\n", strings.TrimSpace(c.Task))
	if c.Input != nil {
		fmt.Fprintf(&b, "Its input (JSON):\n%s\n\n", indented(c.Input))
	}
	if c.Expect.Output != nil {
		fmt.Fprintf(&b, "A reference answer (JSON; a good output agrees with it, in any wording):\n%s\n\n", indented(c.Expect.Output))
	}
	fmt.Fprintf(&b, "The agent's output (JSON):\n%s\n\n", indented(output))
	b.WriteString(`Answer with pass true when the output answers the task, false when it does not, and why in a sentence.`)
	return b.String()
}

// JudgementOf is the judgement of the judge run id, which ended in o
// (reason: why it did not complete): its output read as a Verdict.
func JudgementOf(id string, o Outcome, reason string) *Judgement {
	j := &Judgement{Run: id}
	if o.Status != StatusCompleted {
		j.Error = "status " + orNone(o.Status)
		if reason != "" {
			j.Error += ": " + reason
		}
		return j
	}
	out, err := normal(o.Output)
	if err != nil {
		j.Error = fmt.Sprintf("output: %v", err)
		return j
	}
	raw, _ := json.Marshal(out)
	var v Verdict
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if _, isObject := out.(map[string]any); !isObject || dec.Decode(&v) != nil {
		j.Error = fmt.Sprintf("output %s is not a verdict {pass, why}", compact(out))
		return j
	}
	j.Verdict = &v
	return j
}

// Judged says whether the judge agent judge passed an output, given its
// judgement (nil: the judge was not asked), and why not.
func Judged(judge string, j *Judgement) (bool, string) {
	switch {
	case j == nil:
		return false, fmt.Sprintf("judge %s: no judge run", judge)
	case j.Verdict == nil:
		return false, fmt.Sprintf("judge %s: run %s gave no verdict: %s", judge, j.Run, j.Error)
	case !j.Verdict.Pass:
		return false, fmt.Sprintf("judge %s: %s", judge, j.Verdict.Why)
	}
	return true, ""
}

// indented is v as indented JSON.
func indented(v any) string {
	n, err := normal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	b, _ := json.MarshalIndent(n, "", "  ")
	return string(b)
}
