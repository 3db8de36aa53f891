package policies

import "testing"

func TestClearBefore(t *testing.T) {
	cases := []struct {
		name                    string
		step, keepLast, cleared int
		want                    int
		ok                      bool
	}{
		{"the steps before the last keepLast", 10, 3, 0, 7, true},
		{"more steps since: further", 14, 3, 7, 11, true},
		{"the kept steps alone are over: all but the last", 10, 3, 7, 9, true},
		{"only the last step's left: nothing to clear", 10, 3, 9, 9, false},
		{"a first step: nothing to clear", 1, 3, 0, 0, false},
		{"keep_last 1 is the last step already", 10, 1, 9, 9, false},
	}
	for _, tc := range cases {
		got, ok := ClearBefore(tc.step, tc.keepLast, tc.cleared)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: ClearBefore(%d, %d, %d) = %d, %v; want %d, %v", tc.name, tc.step, tc.keepLast, tc.cleared, got, ok, tc.want, tc.ok)
		}
	}
}
