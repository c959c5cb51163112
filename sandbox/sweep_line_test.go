package sandbox

import "testing"

func TestSweepLine(t *testing.T) {
	for _, c := range []struct {
		n      int
		owners []string
		want   string
	}{
		{1, []string{"42"}, "removed 1 engine object left by earlier runs (quarry pid 42, which ended without removing them)"},
		{3, []string{"42", "43"}, "removed 3 engine objects left by earlier runs (quarry pids 42, 43, which all ended without removing them)"},
		{9, []string{"1", "2", "3", "4", "5"}, "removed 9 engine objects left by earlier runs (quarry pids 1, 2, 3, 2 more, which all ended without removing them)"},
	} {
		if got := sweepLine(c.n, c.owners); got != c.want {
			t.Errorf("sweepLine(%d, %v) = %q\nwant %q", c.n, c.owners, got, c.want)
		}
	}
}
