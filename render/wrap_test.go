package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Paths break after a "/" or not at all, and a minus sign stays with its
// number, at every width.
func TestWrapNeverBreaksAtAHyphen(t *testing.T) {
	texts := []string{
		"figures and files of this session are in quarry-output/20261203-112054-3052ef/figures/fig1.png",
		"the change was -2,000 in North and -1,500 in South, year-over-year",
		"run quarry --resume 20261203-112054-3052ef to go on",
	}
	for _, text := range texts {
		longest := 0
		for _, w := range strings.Fields(text) {
			longest = max(longest, len(w))
		}
		for width := longest; width <= 60; width++ {
			out := Wrap(text, width, "/")
			if strings.Join(strings.Fields(out), "") != strings.Join(strings.Fields(text), "") {
				t.Fatalf("width %d: text changed: %q", width, out)
			}
			for _, l := range strings.Split(out, "\n") {
				l = strings.TrimRight(l, " ")
				if strings.HasSuffix(l, "-") {
					t.Errorf("width %d: a line ends at a hyphen: %q in\n%s", width, l, out)
				}
				if w := ansi.StringWidth(l); w > width && !strings.Contains(strings.Trim(l, " "), " ") {
					continue // one word longer than the line is cut, or left
				} else if w > width {
					t.Errorf("width %d: %q is %d wide", width, l, w)
				}
			}
		}
	}
}

// In an answer too: glamour's wrap breaks after a hyphen, the chat's not.
func TestMarkdownKeepsPathsWhole(t *testing.T) {
	md := "Saved to `x` and quarry-output/20261203-112054-3052ef/figures/fig1.png, a change of -2,000; run `quarry quarry-output/20261203-180031-216887/data/budget_q1.csv`.\n\n- item one\n\n| a | b |\n|---|---|\n| -1 | 2 |\n"
	for width := 20; width <= 80; width += 3 {
		out := ansi.Strip(mustRender(t, md, width))
		for _, l := range strings.Split(out, "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " "), "-") {
				t.Errorf("width %d: %q ends at a hyphen", width, l)
			}
		}
		if !strings.Contains(out, "• item one") || !strings.Contains(out, "-1") || strings.ContainsRune(out, nbHyphen) {
			t.Errorf("width %d: Markdown changed:\n%s", width, out)
		}
	}
}

func mustRender(t *testing.T, md string, width int) string {
	t.Helper()
	out, err := NewMarkdown().Render(md, width, StyleDark)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A path longer than the line breaks after one of its "/".
func TestWrapBreaksALongPathAfterASlash(t *testing.T) {
	out := Wrap("in quarry-output/20261203-112054-3052ef/figures/fig1.png now", 30, "/")
	want := "in quarry-output/\n20261203-112054-3052ef/\nfigures/fig1.png now"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// In an answer, a path longer than the line breaks after one of its "/"
// (glamour's own wrap cuts it at the width, inside a name); one that fits
// a line moves to the next whole.
func TestMarkdownBreaksALongPathAfterASlash(t *testing.T) {
	const path = "quarry-output/20261203-112054-3052ef/figures/cell1-1.png"
	for _, md := range []string{
		"The figure is at " + path + ", a change of -2,000.",
		"- **saved**: " + path,
		"## See " + path,
		"Run `quarry " + path + "` again.",
	} {
		for width := 30; width <= 80; width++ {
			out := ansi.Strip(mustRender(t, md, width))
			for _, part := range strings.SplitAfter(path, "/") {
				if !strings.Contains(out, part) {
					t.Errorf("width %d: %q is cut inside a name:\n%s", width, part, out)
					break
				}
			}
			if strings.ContainsRune(out, pathBreak) {
				t.Errorf("width %d: the break mark is left in:\n%q", width, out)
			}
			if width >= len(path)+8 && !strings.Contains(out, path) {
				t.Errorf("width %d: a path that fits a line is broken:\n%s", width, out)
			}
		}
	}
	if out := ansi.Strip(mustRender(t, "The file is data/q1.csv here.", 80)); !strings.Contains(out, "The file is data/q1.csv here.") {
		t.Errorf("a short path changed:\n%s", out)
	}
}

// A size or a shape is not cut at its inner space; the spaces come back as
// they were.
func TestWrapKeepsQuantitiesWhole(t *testing.T) {
	for _, width := range []int{30, 32, 34, 36, 38, 40} {
		got := Wrap("· Attached sales.csv 12.1 KiB · 1,200 × 7: ask about it.", width, "")
		for _, line := range strings.Split(got, "\n") {
			if strings.HasSuffix(line, " ×") || strings.HasSuffix(line, " 12.1") || strings.HasPrefix(line, "KiB") ||
				strings.HasPrefix(line, "7:") || strings.HasSuffix(line, "1,200") {
				t.Errorf("width %d: a quantity cut at %q:\n%s", width, line, got)
			}
		}
		if strings.ContainsRune(got, '\u00a0') || strings.ReplaceAll(got, "\n", " ") != "· Attached sales.csv 12.1 KiB · 1,200 × 7: ask about it." {
			t.Errorf("width %d: the text changed: %q", width, got)
		}
	}
	if got := Wrap("a\u00a0b 1,200 × 7", 7, ""); !strings.Contains(got, "a\u00a0b") {
		t.Errorf("a no-break space of the text's own lost: %q", got)
	}
}
