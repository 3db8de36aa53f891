package eval

import "fmt"

// The workflow ids of an eval's runs. A case's name is free text, so an
// id must not let one name pass for another kind of run: a run's id ends
// with the eval's stamp, a judge run's with "-judge" after it, and the
// judge of a recording has "recorded" where a run has its number. A case
// named judge-foo thus never gets the id of the judge of foo.

// RunID is the workflow id of run i of the case named name, in the eval
// stamped stamp.
func RunID(name string, i int, stamp string) string {
	return fmt.Sprintf("eval-%s-%d-%s", name, i, stamp)
}

// JudgeID is the workflow id of the judge run on run i of the case named
// name: the run's own id, then "-judge".
func JudgeID(name string, i int, stamp string) string {
	return RunID(name, i, stamp) + "-judge"
}

// RecordedJudgeID is the workflow id of the judge run on the recorded
// output of the case named name.
func RecordedJudgeID(name, stamp string) string {
	return fmt.Sprintf("eval-%s-recorded-%s-judge", name, stamp)
}
