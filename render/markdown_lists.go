package render

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// listMarker is a list item's start as glamour draws it: its indent, then
// "• " or "1. ".
var listMarker = regexp.MustCompile(`^( *)(•|[0-9]+\.) +\S`)

// hangListItems indents the wrapped lines of a list item under the item's
// text, not under its marker: glamour wraps an item's paragraph as if the
// marker were not there, so its second line starts below the bullet.
// width is the one glamour wrapped at; src is the Markdown, to tell a
// break glamour made inside a word from one at a space.
func hangListItems(out string, width int, src string) string {
	lines := strings.Split(out, "\n")
	var res []string
	for i := 0; i < len(lines); i++ {
		if !maybeItem(lines[i]) {
			res = append(res, lines[i])
			continue
		}
		plain := ansi.Strip(lines[i])
		m := listMarker.FindStringSubmatchIndex(plain)
		if m == nil {
			res = append(res, lines[i])
			continue
		}
		indent := m[3] - m[2]
		hang := ansi.StringWidth(plain[:m[1]-1]) // the cell where the item's text starts
		item := []string{trimRightCells(lines[i])}
		j := i + 1
		for ; j < len(lines); j++ {
			p := ansi.Strip(lines[j])
			t := strings.TrimLeft(p, " ")
			if t == "" || len(p)-len(t) != indent || listMarker.MatchString(p) {
				break
			}
			item = append(item, ansi.TruncateLeft(trimRightCells(lines[j]), indent, ""))
		}
		if len(item) == 1 {
			res = append(res, lines[i])
			continue
		}
		head := ansi.Truncate(item[0], hang, "")
		text := ansi.TruncateLeft(item[0], hang, "")
		for _, l := range item[1:] {
			text += joinSep(text, l, src) + l
		}
		wrapped := strings.Split(Wrap(text, max(width-hang, 10), ""), "\n")
		res = append(res, head+wrapped[0])
		for _, l := range wrapped[1:] {
			res = append(res, strings.Repeat(" ", hang)+l)
		}
		i = j - 1
	}
	return strings.Join(res, "\n")
}

// joinSep is what joins two lines glamour wrapped an item's text into: a
// space where it broke at one, nothing where it broke a word after one of
// its break characters (",.;+", as in "budget_q2." and "xlsx", "3," and
// "400.50"), a pathBreak where it broke a path after a "/". A break is
// inside a word when the word, put back together, is in the Markdown.
func joinSep(before, after, src string) string {
	b, a := strings.Fields(ansi.Strip(before)), strings.Fields(ansi.Strip(after))
	if len(b) == 0 || len(a) == 0 {
		return " "
	}
	last, first := unmarkPaths(b[len(b)-1]), unmarkPaths(a[0])
	if !strings.ContainsAny(last[len(last)-1:], ",.;+/") || !strings.Contains(src, last+first) {
		return " "
	}
	if strings.HasSuffix(last, "/") {
		return string(pathBreak)
	}
	return ""
}

// trimRightCells drops the spaces glamour pads a line with, keeping its
// escape sequences.
func trimRightCells(s string) string {
	return ansi.Truncate(s, ansi.StringWidth(strings.TrimRight(ansi.Strip(s), " ")), "")
}

// maybeItem is a cheap test a line must pass to start a list item (a
// bullet, or the dot of "12."; escapes may stand between the digits and
// it), so most lines are not stripped of their escapes at all.
func maybeItem(l string) bool { return strings.ContainsAny(l, "•.") }

var sourceItem = regexp.MustCompile(`^( *)([-*+]|[0-9]+[.)]) +`)

// joinItemParagraphs keeps a list item's second paragraph apart from its
// first: glamour glues them together ("budget.The IT saving"), so the blank
// line between them becomes a hard break, which it draws as a space.
func joinItemParagraphs(md string) string {
	if !strings.Contains(md, "\n\n ") {
		return md
	}
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	fence, item := false, 0 // item: the column an open list item's text starts at
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
		case fence:
		case sourceItem.MatchString(l):
			item = len(sourceItem.FindString(l))
		case t == "":
			if item > 0 && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" && i+1 < len(lines) {
				next := lines[i+1]
				nt := strings.TrimLeft(next, " ")
				if nt != "" && len(next)-len(nt) >= item && !sourceItem.MatchString(next) {
					out[len(out)-1] = strings.TrimRight(out[len(out)-1], " ") + "  "
					continue
				}
			}
		case len(l)-len(t) < item:
			item = 0
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
