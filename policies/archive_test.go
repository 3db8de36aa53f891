package policies

import (
	"slices"
	"testing"
)

func TestArchiveCut(t *testing.T) {
	// b: a boundary of 10 bytes, c: a call of 10 bytes; upper case: pinned;
	// L: live boundary; d: dead call, D: dead boundary; m: a message (a
	// boundary that leads), M: a pinned message.
	parse := func(s string) []ArchiveNode {
		var out []ArchiveNode
		for _, r := range s {
			n := ArchiveNode{Size: 10}
			switch r {
			case 'b':
				n.Boundary = true
			case 'B':
				n.Boundary, n.Pinned = true, true
			case 'C':
				n.Pinned = true
			case 'L':
				n.Boundary, n.Live = true, true
			case 'l':
				n.Live = true
			case 'd':
				n.Dead = true
			case 'D':
				n.Dead, n.Boundary = true, true
			case 'm':
				n.Boundary, n.Leads = true, true
			case 'M':
				n.Boundary, n.Leads, n.Pinned = true, true, true
			}
			out = append(out, n)
		}
		return out
	}
	cases := []struct {
		name        string
		nodes       string
		above, keep int
		want        string // k: kept, a: archived
	}{
		{"small runs keep everything", "Bbcbcbc", 100, 20, "kkkkkkk"},
		{"the newest within the budget, from a boundary", "Bbcbcbcbc", 50, 40, "kaaaakkkk"},
		{"a budget ending mid-step keeps the whole step", "Bbccbccbcc", 50, 40, "kaaakkkkkk"},
		{"a live node keeps itself and what follows", "BbcLcbcbc", 50, 20, "kaakkkkkk"},
		{"a live call keeps its step", "Bbcbcbclbc", 50, 20, "kaaaakkkkk"},
		{"pinned nodes stay in the archived part", "BbcbCbcbc", 50, 20, "kaaakaakk"},
		{"no boundary: nothing to archive", "Bcccccc", 50, 20, "kkkkkkk"},
		{"a last node over the budget is kept", "Bbcbcbc", 50, 5, "kaaaakk"},
		{"empty", "", 0, 0, ""},
		{"dead nodes go wherever they are", "BbcDdbcbc", 50, 100, "kkkaakkkk"},
		{"dead nodes weigh nothing in the budget", "BbcbcDdDdbc", 50, 30, "kaakkaaaakk"},
		{"small runs keep their dead nodes", "BbcDd", 100, 10, "kkkkk"},
		{"a message goes with its turn", "Bmbcmbcmbc", 50, 30, "kaaaaaakkk"},
		{"a message stays while a node it led stays", "Bmbcmbcmbc", 50, 40, "kaaakkkkkk"},
		{"a message stays for a pinned node it led", "BmbCmbcmbc", 50, 30, "kkakaaakkk"},
		{"a dead node holds no message", "BmdDmbcmbc", 50, 30, "kaaaaaakkk"},
		{"a pinned message stays", "BMbcmbcmbc", 50, 30, "kkaaaaakkk"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keep := ArchiveCut(parse(tc.nodes), tc.above, tc.keep)
			got := ""
			for _, k := range keep {
				got += map[bool]string{true: "k", false: "a"}[k]
			}
			if got != tc.want {
				t.Fatalf("ArchiveCut(%s, %d, %d) = %s, want %s", tc.nodes, tc.above, tc.keep, got, tc.want)
			}
		})
	}
}

func TestArchiveCutNeverSplitsAStep(t *testing.T) {
	// Whatever the budget, a kept call's step begins at a kept boundary.
	nodes := []ArchiveNode{{Size: 3, Boundary: true, Pinned: true}}
	for i := range 40 {
		nodes = append(nodes, ArchiveNode{Size: 7 + i%5, Boundary: i%3 == 0})
	}
	for keepBytes := 0; keepBytes < 400; keepBytes += 7 {
		keep := ArchiveCut(nodes, 0, keepBytes)
		first := slices.Index(keep[1:], true) + 1
		if !nodes[first].Boundary {
			t.Fatalf("keep %d bytes: the kept part begins at node %d, not a boundary", keepBytes, first)
		}
		if slices.Contains(keep[first:], false) {
			t.Fatalf("keep %d bytes: a node after the cut is archived", keepBytes)
		}
	}
}
