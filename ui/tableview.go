package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/kernel"
)

// tableView shows the latest table full screen: scrollable both ways and
// sortable by any column. It holds the rows the kernel sent (head and tail).
type tableView struct {
	cols   []string // index column first
	rows   [][]string
	widths []int
	total  string // "1,234 rows × 12 columns (showing 20)"
	top    int    // first row shown
	left   int    // first data column shown (the index column stays)
	sel    int    // selected column
	sortBy int    // -1: kernel order
	desc   bool
	closed bool
}

const maxColWidth = 40

func newTableView(t *kernel.Table) *tableView {
	tv := &tableView{sortBy: -1}
	idx := t.IndexName
	tv.cols = append([]string{sanitizeLine(idx)}, mapStrings(t.Columns, sanitizeLine)...)
	all := append(append([][]string{}, t.Head...), t.Tail...)
	for i, r := range all {
		label := ""
		if i < len(t.Index) {
			label = t.Index[i]
		}
		row := append([]string{sanitizeLine(label)}, mapStrings(r, sanitizeLine)...)
		tv.rows = append(tv.rows, row)
	}
	tv.widths = make([]int, len(tv.cols))
	for c := range tv.cols {
		w := ansi.StringWidth(tv.cols[c]) + 2 // room for the sort arrow
		for _, r := range tv.rows {
			if c < len(r) {
				w = max(w, ansi.StringWidth(r[c]))
			}
		}
		tv.widths[c] = min(max(w, 1), maxColWidth)
	}
	tv.total = fmt.Sprintf("%s rows × %s columns", groupDigits(t.Rows), groupDigits(t.Cols))
	if len(tv.rows) < t.Rows {
		tv.total += fmt.Sprintf(" (first and last %d shown)", len(tv.rows))
	}
	if len(tv.cols) > 1 {
		tv.sel = 1
	}
	return tv
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// HandleMsg scrolls, moves the selected column, sorts and closes.
func (tv *tableView) HandleMsg(msg tea.Msg, height int) {
	page := max(height-4, 1)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+t":
			tv.closed = true
		case "up", "k":
			tv.top--
		case "down", "j":
			tv.top++
		case "pgup":
			tv.top -= page
		case "pgdown", "space":
			tv.top += page
		case "home", "g":
			tv.top = 0
		case "end", "G":
			tv.top = len(tv.rows)
		case "left", "h":
			tv.sel = max(tv.sel-1, 0)
		case "right", "l":
			tv.sel = min(tv.sel+1, len(tv.cols)-1)
		case "s", "enter":
			if tv.sortBy == tv.sel {
				tv.desc = !tv.desc
			} else {
				tv.sortBy, tv.desc = tv.sel, false
			}
			tv.sort()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			tv.top -= 3
		case tea.MouseWheelDown:
			tv.top += 3
		case tea.MouseWheelLeft:
			tv.sel = max(tv.sel-1, 0)
		case tea.MouseWheelRight:
			tv.sel = min(tv.sel+1, len(tv.cols)-1)
		}
	}
	tv.top = max(min(tv.top, len(tv.rows)-page), 0)
}

// sort orders rows by the chosen column: numerically when both cells are
// numbers, as text otherwise; stable so ties keep the kernel's order.
func (tv *tableView) sort() {
	c, desc := tv.sortBy, tv.desc
	sort.SliceStable(tv.rows, func(i, j int) bool {
		a, b := cell(tv.rows[i], c), cell(tv.rows[j], c)
		less := false
		fa, ea := strconv.ParseFloat(strings.ReplaceAll(a, ",", ""), 64)
		fb, eb := strconv.ParseFloat(strings.ReplaceAll(b, ",", ""), 64)
		switch {
		case ea == nil && eb == nil:
			if desc {
				return fa > fb
			}
			return fa < fb
		case ea == nil: // numbers before text (NaN, None)
			return true
		case eb == nil:
			return false
		default:
			less = a < b
			if desc {
				return a > b
			}
		}
		return less
	})
}

func cell(r []string, c int) string {
	if c < len(r) {
		return r[c]
	}
	return ""
}

// Render draws the table in width×height: the index column is pinned and
// the data columns scroll so the selected one is visible.
func (tv *tableView) Render(width, height int, th *theme) string {
	// Keep the selected column on screen.
	if tv.sel > 0 {
		tv.left = min(tv.left, tv.sel)
		for tv.left < tv.sel && tv.span(tv.left, tv.sel) > width {
			tv.left++
		}
	}
	visible := []int{0}
	used := tv.widths[0] + 1
	for c := max(tv.left, 1); c < len(tv.cols); c++ {
		if used+tv.widths[c]+1 > width && len(visible) > 1 {
			break
		}
		visible = append(visible, c)
		used += tv.widths[c] + 3
	}
	line := func(r []string, header bool) string {
		var b strings.Builder
		for i, c := range visible {
			if i > 0 {
				b.WriteString(th.dim.Render(" │ "))
			}
			s := pad(cell(r, c), tv.widths[c])
			switch {
			case header && c == tv.sel:
				s = th.selected.Render(s)
			case header:
				s = th.header.Render(s)
			case c == 0:
				s = th.dim.Render(s)
			}
			b.WriteString(s)
		}
		return truncate(b.String(), width)
	}
	hdr := append([]string(nil), tv.cols...)
	if tv.sortBy >= 0 && tv.sortBy < len(hdr) {
		arrow := " ↑"
		if tv.desc {
			arrow = " ↓"
		}
		hdr[tv.sortBy] = ansi.Truncate(hdr[tv.sortBy], max(tv.widths[tv.sortBy]-2, 0), "") + arrow
	}
	out := []string{line(hdr, true), th.dim.Render(strings.Repeat("─", min(used, width)))}
	body := max(height-4, 1)
	for i := tv.top; i < len(tv.rows) && i < tv.top+body; i++ {
		out = append(out, line(tv.rows[i], false))
	}
	for len(out) < height-2 {
		out = append(out, "")
	}
	out = append(out, th.dim.Render(truncate(tv.total, width)))
	out = append(out, th.help.Render(truncate("↑↓ pgup/pgdn scroll · ←→ column · s sort · q close", width)))
	return strings.Join(out, "\n")
}

func (tv *tableView) span(from, to int) int {
	w := tv.widths[0] + 1
	for c := max(from, 1); c <= to && c < len(tv.widths); c++ {
		w += tv.widths[c] + 3
	}
	return w
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if d := w - ansi.StringWidth(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}
