package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// listFlag collects a flag given many times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("testreport", flag.ContinueOnError)
	var jsons, spans listFlag
	flags.Var(&jsons, "json", "a `[layer=]file` of go test -json output; without a layer, each test's package tells it (repeatable)")
	flags.Var(&spans, "span", "a `layer=file` holding a layer's start and end in Unix seconds, for a layer that is not Go tests (repeatable)")
	slowest := flags.Int("slowest", 15, "how many of the slowest tests to list")
	floor := flags.Int("floor", 0, "fail when fewer tests than this ran, outside the cluster layer (it reruns tests counted already)")
	out := flags.String("out", "", "also write the report to this file")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: testreport -json [layer=]FILE ... [-span layer=FILE ...] [-floor N] [-out FILE]")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	r := newReport()
	for _, j := range jsons {
		layer, path := splitLayer(j)
		if err := readJSONFile(r, layer, path); err != nil {
			return err
		}
	}
	for _, s := range spans {
		layer, path := splitLayer(s)
		if layer == "" {
			return fmt.Errorf("-span %s: want layer=file", s)
		}
		start, end, err := readSpan(path)
		if errors.Is(err, fs.ErrNotExist) {
			r.absent = append(r.absent, absent{layer, path})
			continue
		}
		if err != nil {
			return err
		}
		r.addSpan(layer, start, end)
	}

	var text strings.Builder
	r.write(&text, *slowest)
	ran := r.count(func(layer string) bool { return layer != "cluster" }).total()
	var short error
	if ran < *floor {
		short = fmt.Errorf("%d tests ran outside the cluster layer, fewer than the floor of %d: a test was dropped or skipped its package (raise the floor only when tests are added)", ran, *floor)
	} else if *floor > 0 {
		fmt.Fprintf(&text, "\n%d tests ran outside the cluster layer; the floor is %d\n", ran, *floor)
	}
	fmt.Fprint(stdout, text.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(text.String()), 0o644); err != nil {
			return err
		}
	}
	return short
}

// splitLayer splits "layer=file" (a bare file has no layer).
func splitLayer(arg string) (layer, path string) {
	if l, p, ok := strings.Cut(arg, "="); ok {
		return l, p
	}
	return "", arg
}

// readJSONFile reads one layer's go test -json output. A missing file is
// a layer that did not run (make test says why): the report says so, and
// the floor counts what it lacks.
func readJSONFile(r *report, layer, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		r.absent = append(r.absent, absent{layer, path})
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := r.readJSON(f, layer); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readSpan reads "START END" in Unix seconds (date +%s.%N).
func readSpan(path string) (start, end time.Time, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return start, end, err
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return start, end, fmt.Errorf("%s: want two Unix times, START END, got %q", path, data)
	}
	var times [2]time.Time
	for i, f := range fields {
		secs, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return start, end, fmt.Errorf("%s: %q is not a Unix time: %w", path, f, err)
		}
		times[i] = time.Unix(0, int64(secs*float64(time.Second)))
	}
	return times[0], times[1], nil
}
