package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Case is one eval case: a run to do again, what its tools answered, and
// what the recorded run did. A person may write or edit one by hand.
type Case struct {
	// Name names the case in reports; by default the file's name.
	Name  string         `yaml:"name" json:"name"`
	Agent string         `yaml:"agent" json:"agent"`
	Task  string         `yaml:"task" json:"task"`
	Input map[string]any `yaml:"input,omitempty" json:"input,omitempty"`
	// OutputSchema, when set, is the JSON Schema the run's output must match.
	OutputSchema map[string]any `yaml:"output_schema,omitempty" json:"output_schema,omitempty"`
	// Messages are a conversation's later messages, after the task, in
	// the order it took them: eval run sends each once the run has
	// answered the one before, then ends the conversation.
	Messages []Message `yaml:"messages,omitempty" json:"messages,omitempty"`
	// Expect, when set, is the output the case passes with.
	Expect *Expect `yaml:"expect,omitempty" json:"expect,omitempty"`
	// Tools are the tool results of the recording.
	Tools []ToolResult `yaml:"tools" json:"tools"`
	// Recorded is what the recorded run did, the baseline of a first eval.
	Recorded *Outcome `yaml:"recorded,omitempty" json:"recorded,omitempty"`
	// Path is the file Load read the case from, for errors naming it.
	Path string `yaml:"-" json:"-"`
	// RecordedJudgement is the judge's judgement of the recorded output,
	// made by an eval run of a judge case: the recording's pass then
	// compares like with like.
	RecordedJudgement *Judgement `yaml:"-" json:"-"`
}

// Match is how an output is compared with the expected one.
const (
	MatchExact  = "exact"  // equal JSON values
	MatchSubset = "subset" // every field expected is there, equal
	MatchJudge  = "judge"  // a judge model says whether it answers the task
)

// Expect is the output a case expects, and how it is compared. With
// match judge, Judge names the agent of the candidate config that judges
// the output, and Output, if any, is a reference answer it is shown.
type Expect struct {
	Output any    `yaml:"output,omitempty" json:"output,omitempty"`
	Match  string `yaml:"match" json:"match"`
	Judge  string `yaml:"judge,omitempty" json:"judge,omitempty"`
}

// ToolResult is one tool call of the recording and how it ended: its
// result, or its error.
type ToolResult struct {
	Tool   string     `yaml:"tool" json:"tool"`
	Args   any        `yaml:"args" json:"args"`
	Result any        `yaml:"result,omitempty" json:"result,omitempty"`
	Error  *ToolError `yaml:"error,omitempty" json:"error,omitempty"`
}

// ToolError is a recorded tool failure: its class (transient,
// invalid_args, persistent, fatal) and message, given again as it was.
type ToolError struct {
	Class   string `yaml:"class" json:"class"`
	Message string `yaml:"message" json:"message"`
}

// Outcome is what a run did, and how: the figures a scorecard compares.
type Outcome struct {
	// Run is the workflow id the case was exported from.
	Run    string `yaml:"run,omitempty" json:"run,omitempty"`
	Status string `yaml:"status" json:"status"`
	// Error is why a run that did not complete ended (failed, terminated).
	Error         string  `yaml:"error,omitempty" json:"error,omitempty"`
	Output        any     `yaml:"output,omitempty" json:"output,omitempty"`
	Steps         int     `yaml:"steps" json:"steps"`
	ModelRequests int64   `yaml:"model_requests" json:"model_requests"`
	ToolCalls     int64   `yaml:"tool_calls" json:"tool_calls"`
	InputTokens   int64   `yaml:"input_tokens" json:"input_tokens"`
	OutputTokens  int64   `yaml:"output_tokens" json:"output_tokens"`
	Cost          float64 `yaml:"cost,omitempty" json:"cost,omitempty"`
	Loops         int     `yaml:"loops" json:"loops"`
	// LoopToProgress is the mean seconds from a loop's first event to the
	// progress after it, over the loops progress followed; nil when none
	// did. LoopsWithoutProgress counts the loops none followed.
	LoopToProgress       *float64 `yaml:"loop_to_progress,omitempty" json:"loop_to_progress,omitempty"`
	LoopsWithoutProgress int      `yaml:"loops_without_progress,omitempty" json:"loops_without_progress,omitempty"`
	Rungs                []string `yaml:"rungs,omitempty" json:"rungs,omitempty"`
	Repairs              int      `yaml:"repairs" json:"repairs"`
}

// Ext is a case file's extension.
const Ext = ".yaml"

// Load reads the case file at path: unknown fields, a missing agent or
// task, a tool result without a tool, or an unknown match are refused,
// naming the file and the field.
func Load(path string) (*Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads the text of a case file, as Load does; path names it in
// errors and, without a name, names the case.
func Parse(path string, b []byte) (*Case, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	c.Path = path
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), Ext)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &c, nil
}

// check refuses a case that cannot be run.
func (c *Case) check() error {
	switch {
	case c.Agent == "":
		return fmt.Errorf("agent: missing")
	case strings.TrimSpace(c.Task) == "":
		return fmt.Errorf("task: missing")
	}
	if err := c.Expect.check(); err != nil {
		return err
	}
	for i, m := range c.Messages {
		if strings.TrimSpace(m.Text) == "" {
			return fmt.Errorf("messages[%d].text: missing", i)
		}
	}
	for i, t := range c.Tools {
		if t.Tool == "" {
			return fmt.Errorf("tools[%d].tool: missing", i)
		}
		if t.Error != nil && t.Result != nil {
			return fmt.Errorf("tools[%d]: a result and an error; a call ends with one", i)
		}
		if _, err := Key(t.Tool, t.Args); err != nil {
			return fmt.Errorf("tools[%d].args: %v", i, err)
		}
	}
	return nil
}

// check refuses an unknown match, a judge case without its judge, and a
// judge named for another match. A judge alone means match judge.
func (e *Expect) check() error {
	if e == nil {
		return nil
	}
	if e.Match == "" {
		e.Match = MatchExact
		if e.Judge != "" {
			e.Match = MatchJudge
		}
	}
	switch {
	case e.Match != MatchExact && e.Match != MatchSubset && e.Match != MatchJudge:
		return fmt.Errorf("expect.match: %q is not exact, subset or judge", e.Match)
	case e.Match == MatchJudge && e.Judge == "":
		return fmt.Errorf("expect.judge: missing: match judge needs the agent of the config that judges the output")
	case e.Match != MatchJudge && e.Judge != "":
		return fmt.Errorf("expect.judge: %s judges only with match judge, not %s", e.Judge, e.Match)
	}
	return nil
}

// LoadDir reads every case file of dir, in name order; a directory
// without one is refused.
func LoadDir(dir string) ([]*Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no case files (*%s)", dir, Ext)
	}
	var cases []*Case
	seen := map[string]string{}
	for _, p := range paths {
		c, err := Load(p)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[c.Name]; ok {
			return nil, fmt.Errorf("%s: name %q is the name of %s too", p, c.Name, other)
		}
		seen[c.Name] = p
		cases = append(cases, c)
	}
	return cases, nil
}

// Write writes c to dir as <name>.yaml.
func Write(dir string, c *Case) (string, error) {
	if err := c.check(); err != nil {
		return "", fmt.Errorf("case %s: %v", c.Name, err)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return "", err
	}
	path := filepath.Join(dir, c.Name+Ext)
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

// Key is a tool call's key in a recording: the tool and its arguments as
// canonical JSON, numbers by value (1.50 and 1.5 are one key, as YAML
// reads them alike).
func Key(tool string, args any) (string, error) {
	v, err := viaJSON(args)
	if err != nil {
		return "", err
	}
	canon, err := json.Marshal(v) // sorted keys, numbers as float64
	if err != nil {
		return "", err
	}
	return tool + " " + string(canon), nil
}

// jsonable is v with the map[string]any YAML gives for mappings, so that
// encoding/json can write it (yaml.v3 already does; older files may hold
// map[any]any).
func jsonable(v any) any {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = jsonable(x)
		}
		return m
	case map[string]any:
		for k, x := range t {
			t[k] = jsonable(x)
		}
	case []any:
		for i, x := range t {
			t[i] = jsonable(x)
		}
	}
	return v
}
