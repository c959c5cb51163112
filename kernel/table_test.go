package kernel

import (
	"fmt"
	"testing"
)

// Rows are numbered over Head then Tail; Shown takes the display form
// where the kernel sent one, Exact never does.
func TestTableRows(t *testing.T) {
	tb := &Table{
		Index: []string{"a", "b", "z"}, IndexDisplay: []string{"A", "B", "Z"},
		Head: [][]string{{"1.25"}, {"2.5"}}, Tail: [][]string{{"46624.99000000002"}},
		Display: [][]string{{"1.25"}, {"2.50"}, {"46624.99"}},
	}
	for i, want := range []string{"a [1.25] / A [1.25]", "b [2.5] / B [2.50]", "z [46624.99000000002] / Z [46624.99]", " [] /  []"} {
		l, c := tb.Exact(i)
		sl, sc := tb.Shown(i)
		if got := fmt.Sprintf("%s %v / %s %v", l, c, sl, sc); got != want {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
}
