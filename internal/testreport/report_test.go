package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const stream = `{"Time":"2026-11-28T10:00:00Z","Action":"start","Package":"github.com/unstuck-dev/unstuck/testsuite"}
{"Time":"2026-11-28T10:00:00Z","Action":"run","Package":"github.com/unstuck-dev/unstuck/testsuite","Test":"TestSlow"}
{"Time":"2026-11-28T10:00:01Z","Action":"run","Package":"github.com/unstuck-dev/unstuck/testsuite","Test":"TestBrowserClicks"}
{"Time":"2026-11-28T10:00:01Z","Action":"output","Package":"github.com/unstuck-dev/unstuck/testsuite","Test":"TestSlow","Output":"--- PASS\n"}
{"Time":"2026-11-28T10:00:41Z","Action":"pass","Package":"github.com/unstuck-dev/unstuck/testsuite","Test":"TestSlow","Elapsed":41}
{"Time":"2026-11-28T10:00:11Z","Action":"skip","Package":"github.com/unstuck-dev/unstuck/testsuite","Test":"TestBrowserClicks","Elapsed":10}
{"Time":"2026-11-28T10:00:02Z","Action":"run","Package":"github.com/unstuck-dev/unstuck/policies","Test":"TestRule"}
{"Time":"2026-11-28T10:00:02Z","Action":"run","Package":"github.com/unstuck-dev/unstuck/policies","Test":"TestRule/case"}
{"Time":"2026-11-28T10:00:03Z","Action":"pass","Package":"github.com/unstuck-dev/unstuck/policies","Test":"TestRule/case","Elapsed":1}
{"Time":"2026-11-28T10:00:03Z","Action":"fail","Package":"github.com/unstuck-dev/unstuck/policies","Test":"TestRule","Elapsed":1}
{"Time":"2026-11-28T10:00:02Z","Action":"pass","Package":"github.com/unstuck-dev/unstuck/workflows","Test":"TestStep","Elapsed":2}
{"Time":"2026-11-28T10:00:50Z","Action":"pass","Package":"github.com/unstuck-dev/unstuck/policies"}
`

func TestLayerOf(t *testing.T) {
	for _, tc := range []struct{ pkg, test, want string }{
		{"github.com/unstuck-dev/unstuck/policies/repair", "TestDates", "unit"},
		{"github.com/unstuck-dev/unstuck/workflows", "TestLoop", "workflow"},
		{"github.com/unstuck-dev/unstuck/testsuite/replay", "TestReplayRecordedHistories", "replay"},
		{"github.com/unstuck-dev/unstuck/testsuite", "TestEditBySignal", "real server"},
		{"github.com/unstuck-dev/unstuck/testsuite", "TestBrowserConsoleApprovesCalls", "browser"},
		{"github.com/unstuck-dev/unstuck/load", "TestLoad", "real server"},
	} {
		require.Equal(t, tc.want, layerOf(tc.pkg, tc.test), "%s %s", tc.pkg, tc.test)
	}
}

func TestReportCountsLayersAndSlowest(t *testing.T) {
	dir := t.TempDir()
	tests := filepath.Join(dir, "test.json")
	require.NoError(t, os.WriteFile(tests, []byte(stream), 0o644))
	cluster := filepath.Join(dir, "cluster.json")
	require.NoError(t, os.WriteFile(cluster, []byte(strings.SplitN(stream, "\n", 6)[4]+"\n"), 0o644))
	lint := filepath.Join(dir, "lint.span")
	require.NoError(t, os.WriteFile(lint, []byte("1795900000.25 1795900042.75\n"), 0o644))
	out := filepath.Join(dir, "report.txt")

	var printed strings.Builder
	err := run([]string{"-json", tests, "-json", "cluster=" + cluster, "-span", "lint=" + lint, "-slowest", "2", "-floor", "5", "-out", out}, &printed)
	require.NoError(t, err)
	text := printed.String()
	require.Contains(t, text, "tests run: 6 (4 passed, 1 skipped, 1 failed)")
	require.Regexp(t, `lint\s+42\.5s\s+-`, text)
	require.Regexp(t, `unit\s+1\.0s\s+2\s+0`, text)
	require.Regexp(t, `workflow\s+2\.0s\s+1\s+0`, text)
	require.Regexp(t, `real server\s+41\.0s\s+1\s+0`, text, "from TestSlow's run to its pass")
	require.Regexp(t, `browser\s+10\.0s\s+1\s+1`, text)
	require.Regexp(t, `cluster\s+41\.0s\s+1\s+0`, text)
	require.Contains(t, text, "41.0s  real server  testsuite TestSlow\n    41.0s  cluster")
	require.NotContains(t, text, "TestRule/case", "subtests are inside their test")
	require.Contains(t, text, "5 tests ran outside the cluster layer; the floor is 5")
	saved, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, text, string(saved))
}

func TestReportFailsBelowTheFloor(t *testing.T) {
	tests := filepath.Join(t.TempDir(), "test.json")
	require.NoError(t, os.WriteFile(tests, []byte(stream), 0o644))
	var printed strings.Builder
	gone := filepath.Join(t.TempDir(), "gone")
	err := run([]string{"-json", tests, "-json", "cluster=" + gone + ".json", "-json", gone + "-check.json", "-span", "lint=" + gone + ".span", "-floor", "6"}, &printed)
	require.ErrorContains(t, err, "5 tests ran outside the cluster layer, fewer than the floor of 6")
	require.Regexp(t, `cluster\s+not run`, printed.String(), "a layer whose output is absent did not run")
	require.Regexp(t, `lint\s+not run`, printed.String())
	require.Contains(t, printed.String(), "not run: no "+gone+"-check.json")
}

func TestReportRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"Action\": 3}\n"), 0o644))
	span := filepath.Join(dir, "lint.span")
	require.NoError(t, os.WriteFile(span, []byte("soon\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-json", bad}, bad + ": line 1:"},
		{[]string{"-span", span}, "want layer=file"},
		{[]string{"-span", "lint=" + span}, `want two Unix times, START END, got "soon\n"`},
	} {
		require.ErrorContains(t, run(tc.args, &strings.Builder{}), tc.want, "%v", tc.args)
	}
}
