package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A Markdown table is as wide as its content at any window width: the
// label and its value stay side by side at 200 columns; in a narrow
// window it is laid out as before.
func TestMarkdownTablesFitTheirContent(t *testing.T) {
	md := NewMarkdown()
	src := "| label | value |\n|---|---:|\n| North | 10,000 |\n| South region total | 5 |\n"
	for _, style := range []Style{StyleDark, StyleNoColor, StyleNoTTY} {
		var widths []int
		for _, w := range []int{60, 120, 200} {
			out, err := md.Render(src, w, style)
			if err != nil {
				t.Fatal(err)
			}
			most := 0
			for _, l := range strings.Split(ansi.Strip(out), "\n") {
				if strings.ContainsAny(l, "│|") {
					most = max(most, ansi.StringWidth(strings.TrimRight(l, " ")))
				}
			}
			widths = append(widths, most)
			plain := ansi.Strip(out)
			if !strings.Contains(plain, "North") || !strings.Contains(plain, "10,000") || !strings.Contains(plain, "South region total") {
				t.Errorf("%s at %d: text lost:\n%s", style, w, plain)
			}
			if !strings.Contains(plain, "South region total │      5") && !strings.Contains(plain, "South region total |      5") {
				t.Errorf("%s at %d: the right-aligned column is not kept:\n%s", style, w, plain)
			}
		}
		if widths[0] != widths[1] || widths[1] != widths[2] || widths[2] > 35 {
			t.Errorf("%s: table widths %v at 60, 120 and 200 columns; want its content's, the same", style, widths)
		}
	}
}
