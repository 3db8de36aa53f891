package eval

import (
	"fmt"
	"slices"
	"strings"
)

// StatusCompleted is the status of a run that gave its final output.
const StatusCompleted = "completed"

// Run is one run of a case in an eval: what it did, and its calls off the
// recording.
type Run struct {
	Case       string  `json:"case"`
	Repeat     int     `json:"repeat"`
	WorkflowID string  `json:"workflow_id"`
	Outcome    Outcome `json:"outcome"`
	// Reason is why a run that did not complete stopped.
	Reason string `json:"reason,omitempty"`
	// Diverged are the calls the recording did not have, answered with an
	// error; Live those made for real (--unrecorded live).
	Diverged []string `json:"diverged,omitempty"`
	Live     []string `json:"live,omitempty"`
	// Judgement is the judge run on the output, for a judge case.
	Judgement *Judgement `json:"judgement,omitempty"`
	Pass      bool       `json:"pass"`
	// Why is why the run did not pass.
	Why string `json:"why,omitempty"`
}

// Judge sets r.Pass and r.Why: a run passes when it completed, made no
// call off the recording that was answered with an error, and gave the
// output c expects (for a judge case: the judge's verdict passed it).
func Judge(c *Case, r *Run) {
	r.Pass, r.Why = passed(c, r.Outcome, r.Reason, r.Diverged, r.Judgement)
}

// passed says whether an outcome passes c, and why not, naming the first
// cause: a call the recording does not have comes before what it led to
// (a failed or stopped run, an output that does not match); j is the
// judge's judgement of its output, for a judge case.
func passed(c *Case, o Outcome, reason string, diverged []string, j *Judgement) (bool, string) {
	if len(diverged) > 0 {
		why := fmt.Sprintf("diverged: the call %s is not in the recording", diverged[0])
		if len(diverged) > 1 {
			why += fmt.Sprintf(" (and %d more call(s))", len(diverged)-1)
		}
		return false, why
	}
	if o.Status != StatusCompleted {
		why := "status " + orNone(o.Status)
		if reason != "" {
			why += ": " + reason
		}
		return false, why
	}
	if IsJudged(c) {
		return Judged(c.Expect.Judge, j)
	}
	return Matches(c.Expect, o.Output)
}

// Figures are the means of a case's runs (or the recorded run's own).
type Figures struct {
	Steps         float64 `json:"steps"`
	ModelRequests float64 `json:"model_requests"`
	InputTokens   float64 `json:"input_tokens"`
	OutputTokens  float64 `json:"output_tokens"`
	Cost          float64 `json:"cost"`
	Loops         float64 `json:"loops"`
	Rungs         float64 `json:"rungs"`
	Repairs       float64 `json:"repairs"`
	// LoopToProgress is the mean of the runs' own, over the runs that have
	// one (in a suite's total too); nil when none has.
	LoopToProgress       *float64 `json:"loop_to_progress,omitempty"`
	LoopsWithoutProgress float64  `json:"loops_without_progress"`
}

// figures are o's figures.
func figures(o Outcome) Figures {
	return Figures{Steps: float64(o.Steps), ModelRequests: float64(o.ModelRequests),
		InputTokens: float64(o.InputTokens), OutputTokens: float64(o.OutputTokens), Cost: o.Cost,
		Loops: float64(o.Loops), Rungs: float64(len(o.Rungs)), Repairs: float64(o.Repairs),
		LoopToProgress: o.LoopToProgress, LoopsWithoutProgress: float64(o.LoopsWithoutProgress)}
}

// Changes of a case against its recording.
const (
	ChangeSame   = "same"
	ChangeLost   = "lost"   // the recording passed, the candidate does not
	ChangeGained = "gained" // the recording did not pass, the candidate does
	ChangeNone   = "no recording"
)

// CaseScore is one case's score over its runs, beside its recording.
type CaseScore struct {
	Case   string `json:"case"`
	Runs   int    `json:"runs"`
	Passed int    `json:"passed"`
	// PassK: every run of the case passed.
	PassK    bool    `json:"pass_k"`
	Mean     Figures `json:"mean"`
	Diverged int     `json:"diverged"`
	Live     int     `json:"live,omitempty"`
	// Recorded is the recorded run's figures and whether it passed;
	// absent when the case has no recorded outcome.
	Recorded *RecordedScore `json:"recorded,omitempty"`
	// Baseline is the case in the --baseline scorecard, when there is
	// one; Change and Notes are then against it, not the recording.
	Baseline *BaselineScore `json:"baseline,omitempty"`
	Change   string         `json:"change"`
	// Notes say what moved against the recording (steps, loops) or the
	// baseline (steps, loops, cost).
	Notes []string `json:"notes,omitempty"`
	// Why are the distinct reasons its runs did not pass.
	Why []string `json:"why,omitempty"`
}

// RecordedScore is the recorded run, scored as a run of the case.
type RecordedScore struct {
	Pass    bool    `json:"pass"`
	Why     string  `json:"why,omitempty"`
	Figures Figures `json:"figures"`
	// Judgement is the judge run on the recorded output, for a judge case.
	Judgement *Judgement `json:"judgement,omitempty"`
}

// Suite is the whole eval's score.
type Suite struct {
	Cases  int `json:"cases"`
	PassK  int `json:"pass_k"`
	Runs   int `json:"runs"`
	Passed int `json:"passed"`
	Worse  int `json:"worse"`
	Better int `json:"better"`
	// WorseShare is Worse over Cases; Failed says it is over Threshold.
	WorseShare float64 `json:"worse_share"`
	Threshold  float64 `json:"threshold"`
	Failed     bool    `json:"failed"`
	Diverged   int     `json:"diverged"`
	Total      Figures `json:"total"`
	// Baseline is the --baseline file the cases are compared with;
	// empty, they are compared with their recordings.
	Baseline string `json:"baseline,omitempty"`
}

// Scorecard is an eval's result: each run, each case, the suite.
type Scorecard struct {
	Suite Suite       `json:"suite"`
	Cases []CaseScore `json:"cases"`
	Runs  []Run       `json:"runs"`
}

// Score scores judged runs of cases; threshold is the share of cases
// allowed to get worse than their recording before the eval fails.
func Score(cases []*Case, runs []Run, threshold float64) Scorecard {
	sc := Scorecard{Runs: runs, Suite: Suite{Cases: len(cases), Threshold: threshold}}
	for _, c := range cases {
		cs := scoreCase(c, runs)
		s := &sc.Suite
		s.Runs += cs.Runs
		s.Passed += cs.Passed
		s.Diverged += cs.Diverged
		if cs.PassK {
			s.PassK++
		}
		switch cs.Change {
		case ChangeLost:
			s.Worse++
		case ChangeGained:
			s.Better++
		}
		sc.Cases = append(sc.Cases, cs)
	}
	for _, r := range runs {
		sc.Suite.Total = add(sc.Suite.Total, figures(r.Outcome), 1)
	}
	sc.Suite.Total.LoopToProgress = meanLoopToProgress(runs)
	sc.Suite.settle()
	return sc
}

// settle sets the suite's worse share from its worse cases, and whether
// it is over the threshold.
func (s *Suite) settle() {
	s.WorseShare = 0
	if s.Cases > 0 {
		s.WorseShare = float64(s.Worse) / float64(s.Cases)
	}
	s.Failed = s.WorseShare > s.Threshold
}

// scoreCase scores c over its runs among runs.
func scoreCase(c *Case, runs []Run) CaseScore {
	cs := CaseScore{Case: c.Name}
	var sum Figures
	var own []Run
	for _, r := range runs {
		if r.Case != c.Name {
			continue
		}
		own = append(own, r)
		cs.Runs++
		if r.Pass {
			cs.Passed++
		} else if r.Why != "" && !slices.Contains(cs.Why, r.Why) {
			cs.Why = append(cs.Why, r.Why)
		}
		cs.Diverged += len(r.Diverged)
		cs.Live += len(r.Live)
		sum = add(sum, figures(r.Outcome), 1)
	}
	cs.PassK = cs.Runs > 0 && cs.Passed == cs.Runs
	if cs.Runs > 0 {
		cs.Mean = add(Figures{}, sum, 1/float64(cs.Runs))
	}
	cs.Mean.LoopToProgress = meanLoopToProgress(own)
	cs.Change = ChangeNone
	if o := c.Recorded; o != nil {
		pass, why := passed(c, *o, "", nil, c.RecordedJudgement)
		cs.Recorded = &RecordedScore{Pass: pass, Why: why, Figures: figures(*o), Judgement: c.RecordedJudgement}
		cs.Change = change(pass, cs.PassK)
		cs.Notes = moved(cs.Recorded.Figures, cs.Mean)
	}
	return cs
}

// change is how a case moved from its recording (pass then) to now
// (pass^k now).
func change(then, now bool) string {
	switch {
	case then && !now:
		return ChangeLost
	case !then && now:
		return ChangeGained
	}
	return ChangeSame
}

// moved says which of steps, loops and loops without progress went up or
// down from then to now.
func moved(then, now Figures) []string {
	var out []string
	for _, f := range []struct {
		name      string
		then, now float64
	}{{"steps", then.Steps, now.Steps}, {"loops", then.Loops, now.Loops}, {"loops without progress", then.LoopsWithoutProgress, now.LoopsWithoutProgress}} {
		switch {
		case f.now > f.then:
			out = append(out, fmt.Sprintf("%s up %s→%s", f.name, num(f.then), num(f.now)))
		case f.now < f.then:
			out = append(out, fmt.Sprintf("%s down %s→%s", f.name, num(f.then), num(f.now)))
		}
	}
	return out
}

// add is a plus b times k; its LoopToProgress is unset, a mean of the
// runs' that a sum does not give (meanLoopToProgress).
func add(a, b Figures, k float64) Figures {
	return Figures{
		Steps: a.Steps + k*b.Steps, ModelRequests: a.ModelRequests + k*b.ModelRequests,
		InputTokens: a.InputTokens + k*b.InputTokens, OutputTokens: a.OutputTokens + k*b.OutputTokens,
		Cost: a.Cost + k*b.Cost, Loops: a.Loops + k*b.Loops, Rungs: a.Rungs + k*b.Rungs, Repairs: a.Repairs + k*b.Repairs,
		LoopsWithoutProgress: a.LoopsWithoutProgress + k*b.LoopsWithoutProgress,
	}
}

// num is a figure as short as it reads: 4, 4.5, 4.33.
func num(f float64) string { return short(f, 2) }

// short is f to at most decimals decimals, without trailing zeros.
func short(f float64, decimals int) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.*f", decimals, f), "0"), ".")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
