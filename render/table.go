package render

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"

	"github.com/quarry-cli/quarry/kernel"
)

// TableOptions fit a table to the screen.
type TableOptions struct {
	Width     int  // columns available; 0 means 80
	MaxRows   int  // head rows shown; 0 means all of Head
	Color     bool // bold header, dim borders and gap row
	Dark      bool // the background is dark (for the dim colour)
	Thousands bool // group the digits of numbers: 46,624.99
}

const (
	minCellWidth = 8 // a text column (the labels too) is not squeezed below this (or its natural width)
	gapMark      = "⋯"
)

// Grid is a kernel.Table made ready to show, the one form of a table for
// every front end and export: each cell one line of sanitized text, the
// index first, the values as pandas displays them (digits grouped when
// asked), the rows to show and which columns hold numbers.
type Grid struct {
	Header  []string
	Rows    [][]string
	Gap     int // index in Rows before which rows were left out; -1 for none
	Numeric []bool
	Hidden  int // columns of the frame the kernel did not send
	// IndexCols are the leading columns that are the index: one, or one a
	// level of a MultiIndex, as Jupyter shows them.
	IndexCols int
}

// NewGrid lays out t: its head rows (at most maxRows; 0 means all), then
// its tail. thousands groups the digits of numbers (46,624.99). A column
// of "…" stands where Jupyter leaves columns out (display.max_columns).
func NewGrid(t *kernel.Table, maxRows int, thousands bool) Grid {
	f := Grid{Gap: -1}
	levels := len(t.IndexNames)
	if len(t.IndexLevels) == 0 {
		levels = 0
	}
	switch {
	case levels > 0:
		for _, n := range t.IndexNames {
			f.Header = append(f.Header, SanitizeLine(n))
			f.Numeric = append(f.Numeric, false)
		}
	case len(t.Index) > 0:
		levels = 1
		f.Header = append(f.Header, SanitizeLine(t.IndexName))
		f.Numeric = append(f.Numeric, false)
	}
	f.IndexCols = levels
	gap := -1 // the place of the "…" column among t.Columns
	if t.ColumnGap > 0 && t.ColumnGap < len(t.Columns) && t.Cols > len(t.Columns) {
		gap = t.ColumnGap
	}
	for i, c := range t.Columns {
		if i == gap {
			f.Header = append(f.Header, gapMark)
			f.Numeric = append(f.Numeric, false)
		}
		f.Header = append(f.Header, SanitizeLine(c))
		dtype := ""
		if i < len(t.Dtypes) {
			dtype = t.Dtypes[i]
		}
		f.Numeric = append(f.Numeric, IsNumericDtype(dtype))
	}
	row := func(i int) []string {
		label, cells := t.Shown(i)
		out := make([]string, 0, len(f.Header))
		switch {
		case levels > 0 && len(t.IndexLevels) > 0:
			for k := range levels {
				l := ""
				if i < len(t.IndexLevels) && k < len(t.IndexLevels[i]) {
					l = t.IndexLevels[i][k]
				}
				out = append(out, SanitizeLine(l))
			}
		case levels > 0:
			out = append(out, SanitizeLine(label))
		}
		for j := range t.Columns {
			if j == gap {
				out = append(out, gapMark)
			}
			cell := ""
			if j < len(cells) {
				cell = SanitizeLine(cells[j])
			}
			if thousands && f.Numeric[len(out)] {
				cell = GroupThousands(cell)
			}
			out = append(out, cell)
		}
		return out
	}
	head := len(t.Head)
	// A gap row in place of a single row saves nothing and hides it (often
	// the last: a total).
	if maxRows > 0 && head > maxRows+1 {
		head = maxRows
	}
	for i := range head {
		f.Rows = append(f.Rows, row(i))
	}
	if head < len(t.Head) || len(t.Tail) > 0 {
		f.Gap = len(f.Rows)
	}
	for i := range t.Tail {
		f.Rows = append(f.Rows, row(len(t.Head)+i))
	}
	f.Hidden = max(0, t.Cols-len(t.Columns))
	return f
}

// ColumnsNotShown is the note for n columns left out: "+2 columns not shown".
func ColumnsNotShown(n int) string {
	return fmt.Sprintf("+%d %s not shown", n, plural(n, "column"))
}

// IsNumericDtype tells a column of numbers by its pandas dtype.
func IsNumericDtype(d string) bool {
	d = strings.ToLower(d)
	return strings.HasPrefix(d, "int") || strings.HasPrefix(d, "uint") ||
		strings.HasPrefix(d, "float") || strings.HasPrefix(d, "complex")
}

// fit chooses which columns to show and how wide, for a bordered table
// whose every column costs its width plus three (padding and a rule).
func (f Grid) fit(width int) (keep int, widths []int) {
	natural := make([]int, len(f.Header))
	for j, h := range f.Header {
		natural[j] = ansi.StringWidth(h)
	}
	for _, r := range f.Rows {
		for j, c := range r {
			natural[j] = max(natural[j], ansi.StringWidth(c))
		}
	}
	for j := range natural {
		natural[j] = max(1, natural[j]) // content decides; only the window cuts
	}
	// Numbers are never cut: a truncated number misleads. Labels are cut
	// (with "…") before a column of numbers is dropped.
	least := make([]int, len(natural))
	for j := range least {
		least[j] = min(natural[j], minCellWidth)
		if f.Numeric[j] {
			least[j] = natural[j]
		}
	}
	budget := width - 1 // left border
	used := 0
	for keep < len(natural) {
		need := least[keep] + 3
		if used+need > budget && keep > 0 {
			break
		}
		used += need
		keep++
	}
	widths = make([]int, keep)
	copy(widths, least)
	// Hand the remaining space out one cell at a time, so that narrow
	// columns reach their natural width before wide ones eat everything.
	spare := budget - used
	for spare > 0 {
		grew := false
		for j := range widths {
			if spare > 0 && widths[j] < natural[j] {
				widths[j]++
				spare--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return keep, widths
}

// Table renders a DataFrame as an aligned table fitted to opt.Width: text
// cells cut with "…" (numbers never), columns that do not fit dropped and
// counted in the footer, a "⋯" row between head and tail, and a
// "rows × columns" footer. No trailing newline.
func Table(t *kernel.Table, opt TableOptions) string {
	if t == nil {
		return ""
	}
	width := opt.Width
	if width <= 0 {
		width = 80
	}
	f := NewGrid(t, opt.MaxRows, opt.Thousands)
	keep, widths := f.fit(width)
	dropped := len(f.Header) - keep
	cut := func(cells []string) []string {
		out := make([]string, keep)
		for j := range out {
			out[j] = ansi.Truncate(cells[j], widths[j], "…")
		}
		return out
	}
	var rows [][]string
	for i, r := range f.Rows {
		if i == f.Gap {
			rows = append(rows, gapRow(keep))
		}
		rows = append(rows, cut(r))
	}
	if f.Gap == len(f.Rows) {
		rows = append(rows, gapRow(keep))
	}
	gapAt := -1
	if f.Gap >= 0 {
		gapAt = f.Gap
	}
	dim := lipgloss.NewStyle()
	head := lipgloss.NewStyle()
	if opt.Color {
		// The chat's dim colours (ui/theme.go), readable on both kinds of
		// background; the terminal's own grey is not.
		dim = dim.Foreground(lipgloss.Color("#5B6170"))
		if opt.Dark {
			dim = dim.Foreground(lipgloss.Color("#A0A6BE"))
		}
		head = head.Bold(true)
	}
	tb := table.New().
		Border(lipgloss.RoundedBorder()).
		BorderStyle(dim).
		Headers(cut(f.Header)...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle().Padding(0, 1).Width(widths[col] + 2)
			switch {
			case row == table.HeaderRow:
				s = s.Inherit(head)
				if f.Numeric[col] {
					s = s.Align(lipgloss.Right) // over its numbers, as pandas puts it
				}
			case row == gapAt:
				s = s.Inherit(dim).Align(lipgloss.Center)
			case f.Numeric[col]:
				s = s.Align(lipgloss.Right)
			}
			return s
		})
	return tb.String() + "\n" + tableFooter(t, dropped+f.Hidden, width, dim)
}

func gapRow(n int) []string {
	r := make([]string, n)
	for j := range r {
		r[j] = gapMark
	}
	return r
}

func tableFooter(t *kernel.Table, hidden, width int, dim lipgloss.Style) string {
	s := TableShape(t)
	if hidden > 0 {
		note := ColumnsNotShown(hidden)
		if ansi.StringWidth(s)+len(note)+3 <= width {
			s += " (" + note + ")"
		} else {
			s += "\n" + note
		}
	}
	return dim.Render(s)
}

// GroupThousands puts commas between the digit groups of a number as pandas
// shows it ("46624.99" → "46,624.99", "-2000" → "-2,000"); anything else
// (NaN, 1.5e+20, text) is left as it is.
func GroupThousands(s string) string {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j-i < 4 {
		return s
	}
	rest := s[j:]
	if rest != "" {
		if rest[0] != '.' {
			return s
		}
		for _, c := range rest[1:] {
			if c < '0' || c > '9' {
				return s
			}
		}
	}
	digits := s[i:j]
	var b strings.Builder
	b.WriteString(s[:i])
	for k := range len(digits) {
		if k > 0 && (len(digits)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[k])
	}
	return b.String() + rest
}

// TableShape is a table's size as the chat shows it: "1,234 rows × 1 column".
func TableShape(t *kernel.Table) string {
	return fmt.Sprintf("%s %s × %s %s", GroupInt(t.Rows), plural(t.Rows, "row"), GroupInt(t.Cols), plural(t.Cols, "column"))
}

// GroupInt writes a count with its digit groups: 1,234,567.
func GroupInt(n int) string { return GroupThousands(strconv.Itoa(n)) }

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
