package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
)

// tuningFlags are the flags of the config's worker block, one per setting
// (config.WorkerTuning.Fields): a flag given wins over the file.
type tuningFlags map[string]*int

// addTuningFlags declares them on fs, with the SDK's defaults.
func addTuningFlags(fs *flag.FlagSet) tuningFlags {
	tf := tuningFlags{}
	for _, f := range (&config.WorkerTuning{}).Fields() {
		tf[f.Key] = fs.Int(f.Flag(), f.Default, f.Usage+" (overrides worker."+f.Key+" of the config)")
	}
	return tf
}

// apply checks the flags given and puts them over w. A flag left out keeps
// the file's value.
func (tf tuningFlags) apply(fs *flag.FlagSet, w *config.WorkerTuning) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range w.Fields() {
		if !given[f.Flag()] {
			continue
		}
		v := *tf[f.Key]
		if v < 1 {
			return fmt.Errorf("--%s: must be at least 1, got %d", f.Flag(), v)
		}
		*f.Value = v
	}
	return nil
}

// describeTuning is the startup line's account of the effective settings.
func describeTuning(w *config.WorkerTuning) string {
	var parts []string
	for _, f := range w.Fields() {
		parts = append(parts, fmt.Sprintf("%s=%d", f.Key, f.Effective()))
	}
	return strings.Join(parts, " ")
}

// toolLimits describes a limited tool's limits for the startup line.
func toolLimits(t config.Tool) string {
	var parts []string
	if t.MaxConcurrent > 0 {
		parts = append(parts, fmt.Sprintf("max_concurrent=%d per worker process", t.MaxConcurrent))
	}
	if t.Rate != "" {
		parts = append(parts, "rate="+t.Rate+" for the task queue")
	}
	return strings.Join(parts, ", ")
}
