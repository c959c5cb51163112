package ui

import (
	"reflect"
	"strings"
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

// A path in a notice, a question or an answer breaks after a "/" or not at
// all, at every width of the chat; never at one of its hyphens.
func TestPathsWrapAtSlashes(t *testing.T) {
	const path = "quarry-output/20261203-112054-3052ef/figures/fig1.png"
	for _, width := range []int{40, 60, 80, 120, 200} {
		m, _ := newTestModel(t, width, 30, true)
		m.notice(levelInfo, "figures and files of this session are in "+path)
		m.transcript.add(&block{kind: kindUser, text: "open " + path + " please"})
		m.transcript.add(&block{kind: kindAssistant, text: "The figure is at " + path + ", a change of -2,000."})
		for _, l := range strings.Split(plain(m), "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " "), "-") {
				t.Errorf("width %d: a line ends at a hyphen: %q", width, l)
			}
		}
	}
}
