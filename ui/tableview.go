package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// tableView shows the latest table full screen: scrollable both ways,
// sortable by any column, searchable, and copied or saved for reuse. It
// shows the rows the kernel sent (head and tail) as pandas displays them;
// what it copies and saves are the exact values.
type tableView struct {
	t       *kernel.Table
	cols    []string // index column first
	numeric []bool
	rows    []viewRow
	widths  []int
	total   string // "48 rows × 7 columns · the viewer has the first 10 and the last 5"
	gapAt   int    // rows before the gap of rows the kernel did not send; -1 for none
	gap     string // what the gap line says
	top     int    // first row shown
	left    int    // first data column shown (the index column stays)
	sel     int    // selected column
	sortBy  int    // -1: kernel order
	desc    bool
	closed  bool

	searching bool   // typing a search after "/"
	query     string // the last search
	hit       int    // row of the current match; -1 for none
	note      string // the outcome of the last search, copy or save
	notePath  string // the saved file's path in note, shortened from the left when the note is cut
}

// viewRow is one row as shown, with its place in the kernel's table.
type viewRow struct {
	cells []string // index label first
	orig  int
}

const maxColWidth = 40

func newTableView(t *kernel.Table, thousands bool) *tableView {
	tv := &tableView{t: t, sortBy: -1, hit: -1}
	tv.cols = append([]string{sanitizeLine(t.IndexName)}, mapStrings(t.Columns, sanitizeLine)...)
	tv.numeric = make([]bool, len(tv.cols))
	for i := range t.Columns {
		if i < len(t.Dtypes) {
			tv.numeric[i+1] = render.IsNumericDtype(t.Dtypes[i])
		}
	}
	for i := range len(t.Head) + len(t.Tail) {
		label, cells := t.Shown(i)
		row := append([]string{sanitizeLine(label)}, mapStrings(cells, sanitizeLine)...)
		for c := range row {
			if thousands && c < len(tv.numeric) && tv.numeric[c] {
				row[c] = render.GroupThousands(row[c])
			}
		}
		tv.rows = append(tv.rows, viewRow{cells: row, orig: i})
	}
	tv.widths = make([]int, len(tv.cols))
	for c := range tv.cols {
		w := ansi.StringWidth(tv.cols[c]) + 2 // room for the sort arrow
		for _, r := range tv.rows {
			if c < len(r.cells) {
				w = max(w, ansi.StringWidth(r.cells[c]))
			}
		}
		tv.widths[c] = min(max(w, 1), maxColWidth)
	}
	tv.total, tv.gapAt = render.TableShape(t), -1
	if missing := t.Rows - len(tv.rows); missing > 0 {
		// The kernel sends a long table's first and last rows only: say
		// which the viewer has, and mark where the others are.
		tv.gapAt = len(t.Head)
		tv.gap = fmt.Sprintf("⋯ %s not in the viewer ⋯", render.GroupInt(missing)+" "+pluralWord(missing, "row"))
		if len(t.Tail) > 0 {
			tv.total += fmt.Sprintf(" · the viewer has the first %d and the last %d", len(t.Head), len(t.Tail))
		} else {
			tv.total += fmt.Sprintf(" · the viewer has the first %d", len(t.Head))
		}
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

// tableAction is what a key in the viewer asks of the chat.
type tableAction int

const (
	tableNone       tableAction = iota
	tableCopy                   // copy the whole table to the clipboard
	tableCopyColumn             // copy the selected column
	tableWrite                  // write the table as CSV into the session folder
)

// HandleMsg scrolls, moves the selected column, sorts, searches and closes;
// copying and saving it leaves to the chat (the returned action).
func (tv *tableView) HandleMsg(msg tea.Msg, height int) tableAction {
	page := max(height-4, 1)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if tv.searching {
			tv.searchKey(msg)
			break
		}
		tv.note, tv.notePath = "", ""
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
			tv.top = tv.lineCount()
		case "left", "h":
			tv.sel = max(tv.sel-1, 0)
		case "right", "l":
			tv.sel = min(tv.sel+1, len(tv.cols)-1)
		case "s", "enter":
			if tv.partial() {
				tv.note = fmt.Sprintf("no sort: only %d of %s rows here; ask for it sorted", len(tv.rows), render.GroupInt(tv.t.Rows))
				break
			}
			if tv.sortBy == tv.sel {
				tv.desc = !tv.desc
			} else {
				tv.sortBy, tv.desc = tv.sel, false
			}
			tv.sort()
		case "/":
			tv.searching, tv.query = true, ""
		case "n":
			tv.find(tv.hit+1, 1, page)
		case "N":
			tv.find(tv.hit-1, -1, page)
		case "c":
			return tableCopy
		case "C":
			return tableCopyColumn
		case "w":
			return tableWrite
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
	tv.top = max(min(tv.top, tv.lineCount()-page), 0)
	return tableNone
}

// partial tells whether the viewer has only some of the table's rows.
func (tv *tableView) partial() bool { return tv.gapAt >= 0 }

// lineCount is the rows the viewer draws: the table's and the gap line.
func (tv *tableView) lineCount() int {
	if tv.partial() {
		return len(tv.rows) + 1
	}
	return len(tv.rows)
}

// lineOf is the line row i is drawn on, below the gap when after it.
func (tv *tableView) lineOf(i int) int {
	if tv.partial() && i >= tv.gapAt {
		return i + 1
	}
	return i
}

func pluralWord(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
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
	line := func(r []string, header, hit bool) string {
		var b strings.Builder
		for i, c := range visible {
			if i > 0 {
				b.WriteString(th.dim.Render(" │ "))
			}
			var s string
			if tv.numeric[c] {
				s = padLeft(cell(r, c), tv.widths[c]) // numbers line up on the right
			} else {
				s = pad(cell(r, c), tv.widths[c])
			}
			switch {
			case header && c == tv.sel:
				s = th.selected.Render(s)
			case header:
				s = th.header.Render(s)
			case hit:
				s = th.selected.Render(s)
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
	out := []string{line(hdr, true, false), th.dim.Render(strings.Repeat("─", min(used, width)))}
	body := max(height-4, 1)
	for l := tv.top; l < tv.lineCount() && l < tv.top+body; l++ {
		i := l
		if tv.partial() && l >= tv.gapAt {
			if l == tv.gapAt {
				out = append(out, th.dim.Render(truncate(tv.gap, width)))
				continue
			}
			i = l - 1
		}
		out = append(out, line(tv.rows[i].cells, false, i == tv.hit))
	}
	for len(out) < height-2 {
		out = append(out, "")
	}
	foot := tv.total
	if tv.note != "" {
		foot += " · " + tv.note
		if ansi.StringWidth(foot) > width {
			foot = tv.note // the latest news first
			// A saved file's path gives way from the left: its name stays.
			if p := tv.notePath; p != "" && ansi.StringWidth(foot) > width && strings.Contains(foot, p) {
				if room := width - (ansi.StringWidth(foot) - ansi.StringWidth(p)); room >= 8 {
					foot = strings.Replace(foot, p, shortenPath(p, room), 1)
				}
			}
		}
	}
	out = append(out, th.dim.Render(truncate(foot, width)))
	sortHint := hint{"s sort", 2}
	if tv.partial() {
		sortHint = hint{} // not offered: it would sort some of the rows only
	}
	help := fitHints(width, hint{"↑↓ pgup/pgdn scroll", 1}, hint{"←→ column", 2}, sortHint, hint{"/ search", 3},
		hint{"c copy", 3}, hint{"C copy column", 4}, hint{"w save CSV", 1}, hint{"q close", 0})
	if tv.searching {
		help = truncate("search: "+tv.query+"▏ (enter find · esc cancel)", width)
	}
	out = append(out, th.help.Render(help))
	return strings.Join(out, "\n")
}

func (tv *tableView) span(from, to int) int {
	w := tv.widths[0] + 1
	for c := max(from, 1); c <= to && c < len(tv.widths); c++ {
		w += tv.widths[c] + 3
	}
	return w
}

func padLeft(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if d := w - ansi.StringWidth(s); d > 0 {
		s = strings.Repeat(" ", d) + s
	}
	return s
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if d := w - ansi.StringWidth(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}
