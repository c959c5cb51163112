package export

import (
	"fmt"
	"slices"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// Why the variance moved: the session's last pvm() and explain() tables,
// each a sheet of its own in the workbook (every row, its notes and method
// below) and a section of the PDF (its largest rows, as the host formats
// amounts). They come from the record, as the variance table does.

// analysisKinds are the analyses a report shows, in its order, with the
// title of their section and the name of their sheet, and the columns the
// PDF prints (the label columns before the first of them come too).
var analysisKinds = []analysisKind{
	{"explain", "Drivers of the variance", "Drivers", []string{"line", "dimension", "member", "variance", "share"}, 60},
	{"pvm", "Price, volume and mix", "Price volume mix", []string{"status", "variance", "price", "volume", "mix", "new_lost"}, 15},
	{"fx", "Constant currency: the FX effect", "FX", []string{"variance", "fx_effect", "variance_cc"}, 30},
}

type analysisKind struct {
	kind, title, sheet string
	printed            []string
	rows               int // printed in the PDF, a last Total row besides
}

// specAnalysis is one analysis as the builder reads it.
type specAnalysis struct {
	Kind    string   `json:"kind"`
	Title   string   `json:"title"`
	Sheet   string   `json:"sheet"`
	Columns []string `json:"columns"`
	Numeric []bool   `json:"numeric"`
	Rows    [][]any  `json:"rows"`
	// Printed are the PDF's columns (indexes) and Text its rows, formatted.
	Printed []int      `json:"printed"`
	Text    [][]string `json:"text"`
	LeftOut string     `json:"left_out,omitempty"`
	Notes   []string   `json:"notes"`
	Method  string     `json:"method,omitempty"`
}

// analysesOf are the report's analyses: the record's last pvm() and
// explain(), then the FX split of its variance table.
func (d *doc) analysesOf(r reportData) []kernel.Analysis {
	out := d.lastAnalyses()
	if fx := fxAnalysis(r.variance); fx != nil {
		out = append(out, *fx)
	}
	return out
}

// lastAnalyses are the record's last table of each kind the kernel sends,
// in the report's order.
func (d *doc) lastAnalyses() []kernel.Analysis {
	last := map[string]kernel.Analysis{}
	for _, t := range d.turns {
		for _, c := range t.Cells {
			if c.Result.Report == nil || c.Status != session.CellOK {
				continue
			}
			for _, a := range c.Result.Report.Analyses {
				last[a.Kind] = a
			}
		}
	}
	var out []kernel.Analysis
	for _, k := range analysisKinds {
		if a, ok := last[k.kind]; ok && len(a.Columns) > 0 && len(a.Numeric) == len(a.Columns) {
			out = append(out, a)
		}
	}
	return out
}

// specAnalyses are the analyses as the builder reads them, their text
// cleaned for a spreadsheet and a PDF.
func specAnalyses(as []kernel.Analysis) []specAnalysis {
	var out []specAnalysis
	for _, a := range as {
		i := slices.IndexFunc(analysisKinds, func(k analysisKind) bool { return k.kind == a.Kind })
		k := analysisKinds[i] // lastAnalyses keeps only these kinds
		s := specAnalysis{Kind: a.Kind, Title: k.title, Sheet: k.sheet, Numeric: a.Numeric, Method: clean1(a.Method)}
		for _, c := range a.Columns {
			s.Columns = append(s.Columns, clean1(c))
		}
		for _, n := range a.Notes {
			s.Notes = append(s.Notes, clean1(n))
		}
		for _, r := range a.Rows {
			if len(r) != len(a.Columns) {
				continue // not the shape the kernel sends
			}
			row := make([]any, len(r))
			for j, x := range r {
				row[j] = analysisCell(x, a.Numeric[j])
			}
			s.Rows = append(s.Rows, row)
		}
		s.Printed = printedColumns(s.Columns, k.printed)
		shown := topRows(s.Rows, k.rows)
		for _, ri := range shown {
			var text []string
			for _, j := range s.Printed {
				text = append(text, cellText(s.Rows[ri][j], s.Columns[j]))
			}
			s.Text = append(s.Text, text)
		}
		if len(shown) < a.TotalRows {
			s.LeftOut = fmt.Sprintf("The %d largest of %d rows; every row is on the workbook's %s sheet.", len(shown), a.TotalRows, k.sheet)
		}
		out = append(out, s)
	}
	return out
}

// analysisCell is a number as a number (nil for none), text cleaned.
func analysisCell(x any, numeric bool) any {
	if numeric {
		if f, ok := x.(float64); ok {
			return f
		}
		return nil
	}
	s, _ := x.(string)
	return clean1(s)
}

// printedColumns are the label columns before the first of want, then want.
func printedColumns(cols, want []string) []int {
	var out []int
	first := len(cols)
	for j, c := range cols {
		if slices.Contains(want, c) {
			first = min(first, j)
		}
	}
	for j := range first {
		out = append(out, j)
	}
	for _, w := range want {
		if j := slices.Index(cols, w); j >= first {
			out = append(out, j)
		}
	}
	return out
}

// topRows are the first n rows (the kernel orders them, largest first)
// and a last Total row.
func topRows(rows [][]any, n int) []int {
	var out []int
	for i := range min(n, len(rows)) {
		out = append(out, i)
	}
	if last := len(rows) - 1; last >= n && len(rows[last]) > 0 && rows[last][0] == "Total" {
		out = append(out, last)
	}
	return out
}

// cellText is a cell as the PDF prints it: amounts as the variance table
// prints them, a share in percent.
func cellText(x any, col string) string {
	switch v := x.(type) {
	case float64:
		if col == "share" {
			p := v * 100
			return pctText(&p)
		}
		return moneyText(v)
	case string:
		return v
	}
	return noAmount
}
