package ui

import (
	"reflect"
	"testing"
)

func TestWrapText(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"the variables are kept", 19, []string{"the variables are", "kept"}},
		{"  /attach PATH  attach a CSV or Excel file", 34, []string{"  /attach PATH  attach a CSV or", "                Excel file"}},
		// A second column past the middle: the continuation goes under the indent.
		{"  /attach PATH  attach a CSV or Excel file", 30, []string{"  /attach PATH  attach a CSV", "  or Excel file"}},
		{"- an item that wraps here", 12, []string{"- an item", "  that wraps", "  here"}},
		{"  line 3819, in get_loc", 14, []string{"  line 3819,", "  in get_loc"}},
		{"/usr/lib/python3/dist-packages/base.py", 20, []string{"/usr/lib/python3/", "dist-packages/", "base.py"}},
		{"short", 80, []string{"short"}},
	} {
		if got := wrapText(c.in, c.width, outputBreaks); !reflect.DeepEqual(got, c.want) {
			t.Errorf("wrapText(%q, %d)\n got %q\nwant %q", c.in, c.width, got, c.want)
		}
	}
}

func TestWrapCode(t *testing.T) {
	got := wrapCode("    top = v.sort_values(ascending=False)", 30, func(s string) string { return s })
	want := []string{"    top = v.sort_values(", "    ↪ ascending=False)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wrapCode:\n got %q\nwant %q", got, want)
	}
}
