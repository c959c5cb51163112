package ground

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/quarry-cli/quarry/kernel"
)

// grid is a source table as an answer's table is matched to it: its
// columns' names, and per row the labels that name it and the values of
// its cells.
type grid struct {
	src     int        // index into index.srcs
	cell    int        // the cell that returned or printed it
	kind    SourceKind // a printed table's stream; empty for a returned table
	index   string
	cols    []string
	keys    []string         // the columns' names as nameScore compares them
	hints   []colHint        // what a column's name says of its values (a percent)
	rows    []gridRow        //
	byLabel map[string][]int // a normalized label → the rows it names
	ordinal bool             // the index is the row's position (0, 1, 2…)
}

type gridRow struct {
	line     int      // a printed table's line in its text, from 1
	lineText string   // that line
	label    string   // the index label as written
	labels   []string // normalized: the index label's parts, the text cells
	vals     []float64
	has      []bool
	texts    []string
}

// newGrid reads a table the kernel returned.
func newGrid(src, cell int, t *kernel.Table) *grid {
	g := &grid{src: src, cell: cell, index: t.IndexName, cols: t.Columns, byLabel: map[string][]int{}, ordinal: t.IndexName == ""}
	g.nameColumns()
	numeric := make([]bool, len(t.Columns))
	for j, c := range t.Columns {
		numeric[j] = !labelColumn(c) && (j >= len(t.Dtypes) || numericDtype(t.Dtypes[j]))
	}
	rows := len(t.Head) + len(t.Tail)
	for i := 0; i < rows; i++ {
		label, cells := t.Exact(i)
		r := gridRow{label: label, vals: make([]float64, len(cells)), has: make([]bool, len(cells)), texts: cells}
		if g.ordinal && label != fmt.Sprint(i) {
			g.ordinal = false
		}
		r.labels = append(r.labels, labelParts(label)...)
		for j, c := range cells {
			switch {
			case j < len(numeric) && numeric[j]:
				r.vals[j], r.has[j] = exactNumber(c)
			case j < len(t.Columns) && labelColumn(t.Columns[j]):
				r.labels = append(r.labels, labelParts(c)...)
			default:
				// text: a label, or a number formatted as text (1,234.50, 12.5%)
				if ns := scanSource(c); len(ns) == 1 && !hasLetter(c) {
					r.vals[j], r.has[j] = ns[0].v, true
				} else if hasLetter(c) {
					r.labels = append(r.labels, labelParts(c)...)
				}
			}
		}
		g.addRow(r)
	}
	return g
}

// nameColumns works out what the columns' names say once: their keys
// for nameScore, their hints.
func (g *grid) nameColumns() {
	g.keys, g.hints = make([]string, len(g.cols)), make([]colHint, len(g.cols))
	for j, c := range g.cols {
		g.keys[j], g.hints[j] = normName(c), headerHint(c)
	}
}

// describe says which cell of the table a value is in, as index.describe
// does for the values it holds.
func (g *grid) describe(i, j int) string {
	if g.kind != "" {
		return g.describePrinted(i)
	}
	return clip(fmt.Sprintf("table row %s, column %s: %s", g.rows[i].label, g.cols[j], g.rows[i].texts[j]))
}

// normLabel is a label for comparing an answer's table cell with a
// source's row label: case, markup, spacing and the long or short name of
// a month do not count.
func normLabel(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(s), "*_`~")), " "))
	s = strings.TrimRight(s, ".:")
	if long, ok := monthForms[s]; ok && len(long) > len(s) {
		return s
	} else if ok {
		return long[:3]
	}
	return s
}

// labelParts are the normalized parts of a label: a MultiIndex's tuple
// "('Engineering', 'Salaries')" is two.
func labelParts(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && strings.Contains(s, ",") {
		var out []string
		for _, p := range strings.Split(s[1:len(s)-1], ",") {
			if p = strings.Trim(strings.TrimSpace(p), `'"`); p != "" {
				out = append(out, normLabel(p))
			}
		}
		return out
	}
	return []string{normLabel(s)}
}

// headerHint reads a column's name for what its cells are: "Q1 ($k)" in
// thousands, "Revenue (EUR m)" in millions, "share (%)", "margin_pct" and
// "Var %" percent.
func headerHint(h string) colHint {
	out := colHint{scale: 1}
	words := strings.FieldsFunc(strings.ToLower(h), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '%' && r != '\''
	})
	for k, w := range words {
		switch w {
		case "%", "pct", "percent", "share", "ratio", "rate", "margin", "pp":
			out.percent = true
		}
		if k == 0 {
			continue // the name itself: "K" is no scale there
		}
		w = strings.TrimLeft(w, "$€£¥")
		for _, cur := range []string{"usd", "eur", "gbp", "chf"} {
			w = strings.TrimPrefix(strings.TrimSuffix(w, cur), cur)
		}
		switch w {
		case "k", "000", "000s", "'000", "'000s", "thousand", "thousands", "tsd":
			out.scale = 1e3
		case "m", "mn", "mio", "million", "millions", "mln":
			out.scale = 1e6
		case "bn", "b", "billion", "billions", "mrd":
			out.scale = 1e9
		}
	}
	if strings.HasSuffix(strings.TrimSpace(h), "%") {
		out.percent = true
	}
	return out
}
