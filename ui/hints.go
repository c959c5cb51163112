package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// hint is one key's help in a hint line; rank 0 is essential, and the
// higher the rank the sooner it goes when the line is too narrow.
type hint struct {
	text string
	rank int
}

const hintSep = " · "

// fitHints joins the hints that fit in width, in their order, leaving out
// the highest ranks first (the last of a rank before the first), so the
// essential keys show at any width; what still does not fit is cut.
func fitHints(width int, hs ...hint) string {
	keep := make([]bool, len(hs))
	for i := range keep {
		keep[i] = true
	}
	join := func() string {
		var parts []string
		for i, h := range hs {
			if keep[i] && h.text != "" {
				parts = append(parts, h.text)
			}
		}
		return strings.Join(parts, hintSep)
	}
	for ansi.StringWidth(join()) > width {
		drop, rank := -1, 0
		for i, h := range hs {
			if keep[i] && h.rank > 0 && h.rank >= rank {
				drop, rank = i, h.rank
			}
		}
		if drop < 0 {
			break
		}
		keep[drop] = false
	}
	return truncate(join(), width)
}

// shortenPath fits a path in width by leaving out its start, at a folder
// boundary when one allows (…/figures/cell2-1.png): the end names the
// file. A file name longer than width keeps its end.
func shortenPath(p string, width int) string {
	if ansi.StringWidth(p) <= width {
		return p
	}
	if width <= 1 {
		return "…"
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && ansi.StringWidth(p[i:])+1 <= width {
			return "…" + p[i:]
		}
	}
	r := []rune(p)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > width {
		r = r[1:]
	}
	return "…" + string(r)
}
