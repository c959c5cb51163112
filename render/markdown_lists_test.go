package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A list item that wraps continues under its text, not under its bullet,
// in every style and at any width, and no line grows past the width.
func TestListItemsHangUnderTheirText(t *testing.T) {
	md := NewMarkdown()
	src := "- The first department has a much larger variance than the others, by a wide margin overall.\n- Short\n\n12. A numbered item that is long enough to wrap onto a second line at sixty columns.\n"
	for _, style := range []Style{StyleDark, StyleNoColor, StyleNoTTY} {
		for _, w := range []int{40, 60, 80} {
			out, err := md.Render(src, w, style)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(ansi.Strip(out), "\n")
			for i, l := range lines {
				if ansi.StringWidth(strings.TrimRight(l, " ")) > w {
					t.Errorf("%s at %d: line %d is %d wide: %q", style, w, i, ansi.StringWidth(l), l)
				}
				if i == 0 || strings.TrimSpace(l) == "" || listMarker.MatchString(l) {
					continue
				}
				prev := lines[i-1]
				if m := listMarker.FindStringIndex(prev); m != nil || strings.HasPrefix(prev, "    ") || strings.HasPrefix(prev, "      ") {
					if !strings.HasPrefix(l, "    ") {
						t.Errorf("%s at %d: %q continues %q but not under its text", style, w, l, prev)
					}
				}
			}
			if !strings.Contains(strings.Join(strings.Fields(ansi.Strip(out)), " "), "by a wide margin overall.") {
				t.Errorf("%s at %d: text lost:\n%s", style, w, out)
			}
		}
	}
}

// A list item's second paragraph is not glued to its first.
func TestListItemParagraphsStayApart(t *testing.T) {
	doc := "- IT came in under budget.\n\n  The IT saving is a delayed renewal.\n- next\n\n```\n- a\n\n  b\n```\n"
	for _, style := range []Style{StyleDark, StyleNoColor, StyleNoTTY} {
		out, err := NewMarkdown().Render(doc, 60, style)
		if err != nil {
			t.Fatal(err)
		}
		plain := ansi.Strip(out)
		if strings.Contains(plain, "budget.The") || !strings.Contains(plain, "budget. The IT saving") {
			t.Errorf("%s: %q", style, plain)
		}
		if !regexp.MustCompile(`- a *\n *\n +b`).MatchString(plain) {
			t.Errorf("%s: the code block changed: %q", style, plain)
		}
	}
}

// glamour breaks a list item's words after ",.;+" where they reach the
// margin; the item's lines, hung under its text, keep those words whole
// instead of gluing their halves with a space ("variance_q2. xlsx").
func TestListItemKeepsWordsWhole(t *testing.T) {
	md := "- the workbook is saved as variance_report_q2.xlsx in the folder, with 3,400.50 as total; see df.groupby(x).sum() there"
	for width := 30; width <= 80; width++ { // the longest word fits the item's line
		out := strings.Join(strings.Fields(ansi.Strip(mustRender(t, md, width))), " ")
		for _, w := range []string{"variance_report_q2.xlsx", "3,400.50", "df.groupby(x).sum()", "folder, with", "total; see"} {
			if !strings.Contains(out, w) {
				t.Errorf("width %d: %q is not whole:\n%s", width, w, out)
			}
		}
	}
}
