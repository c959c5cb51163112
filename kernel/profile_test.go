package kernel

import "testing"

// A very wide file's width is its column count, not the columns listed.
func TestProfileWidth(t *testing.T) {
	cols := make([]Column, 200)
	if w := (&Profile{Columns: cols, ColumnCount: 300000}).Width(); w != 300000 {
		t.Errorf("wide: %d", w)
	}
	if w := (&Profile{Columns: cols[:3]}).Width(); w != 3 {
		t.Errorf("narrow: %d", w)
	}
}
