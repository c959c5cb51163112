package ground

import (
	"strconv"

	"github.com/quarry-cli/quarry/kernel"
)

// The tables a cell kept for the report (its variance() table with the
// comparisons and the FX split, its explain() and pvm() tables) are what
// it computed, whether it printed them or not: the report shows them, so
// an answer or a commentary quoting them is grounded in them.

// maxKeptRows bounds the rows of a kept table the check indexes: the
// material lines and the largest drivers come first.
const maxKeptRows = 2000

// fromReport are a cell's kept tables as sources.
func fromReport(cell int, rep *kernel.Report) []Source {
	if rep == nil {
		return nil
	}
	var out []Source
	if t := varianceTable(rep.Variance); t != nil {
		out = append(out, Source{Cell: cell, Kind: Table, Table: t})
	}
	for _, a := range rep.Analyses {
		if t := analysisTable(a); t != nil {
			out = append(out, Source{Cell: cell, Kind: Table, Table: t})
		}
	}
	return out
}

func varianceTable(v *kernel.Variance) *kernel.Table {
	if v == nil || len(v.Lines) == 0 {
		return nil
	}
	t := &kernel.Table{Rows: v.Rows}
	for _, l := range v.Labels {
		t.Columns, t.Dtypes = append(t.Columns, l), append(t.Dtypes, "object")
	}
	num := func(names ...string) {
		for _, n := range names {
			t.Columns, t.Dtypes = append(t.Columns, n), append(t.Dtypes, "float64")
		}
	}
	num("actual", "budget", "variance", "variance_pct")
	for _, c := range v.Comparisons {
		num(c, c+"_variance", c+"_variance_pct")
	}
	if v.FX != nil {
		num("variance_cc", "fx_effect")
	}
	for _, ln := range keptLines(v.Lines) {
		row := make([]string, 0, len(t.Columns))
		for i := range v.Labels {
			l := ""
			if j := i - (len(v.Labels) - len(ln.Label)); j >= 0 && j < len(ln.Label) {
				l = ln.Label[j]
			}
			row = append(row, l)
		}
		row = append(row, exact(ln.Actual), exact(ln.Budget), exact(ln.Variance), optional(ln.Pct))
		for _, c := range v.Comparisons {
			lc, ok := ln.Comparisons[c]
			if !ok {
				row = append(row, "", "", "")
				continue
			}
			row = append(row, exact(lc.Amount), exact(lc.Variance), optional(lc.Pct))
		}
		if v.FX != nil {
			if ln.FX == nil {
				row = append(row, "", "")
			} else {
				row = append(row, optional(ln.FX.VarianceCC), optional(ln.FX.Effect))
			}
		}
		t.Head = append(t.Head, row)
		t.Index = append(t.Index, strconv.Itoa(len(t.Index)))
	}
	t.Cols = len(t.Columns)
	return t
}

// keptLines are the lines indexed: every one up to maxKeptRows, else the
// totals and the material ones first, in the table's order.
func keptLines(lines []kernel.VarianceLine) []kernel.VarianceLine {
	if len(lines) <= maxKeptRows {
		return lines
	}
	keep := make([]bool, len(lines))
	n := 0
	for pass := 0; pass < 3 && n < maxKeptRows; pass++ {
		for i, ln := range lines {
			if !keep[i] && n < maxKeptRows && (pass == 2 || (pass == 0 && ln.Total) || (pass == 1 && ln.Material)) {
				keep[i], n = true, n+1
			}
		}
	}
	var out []kernel.VarianceLine
	for i, ln := range lines {
		if keep[i] {
			out = append(out, ln)
		}
	}
	return out
}

func analysisTable(a kernel.Analysis) *kernel.Table {
	if len(a.Columns) == 0 || len(a.Numeric) != len(a.Columns) {
		return nil
	}
	t := &kernel.Table{Columns: a.Columns, Rows: a.TotalRows, Cols: len(a.Columns)}
	for _, n := range a.Numeric {
		d := "object"
		if n {
			d = "float64"
		}
		t.Dtypes = append(t.Dtypes, d)
	}
	for _, r := range a.Rows {
		if len(r) != len(a.Columns) {
			continue
		}
		if len(t.Head) == maxKeptRows {
			break
		}
		row := make([]string, len(r))
		for j, x := range r {
			switch x := x.(type) {
			case float64:
				row[j] = exact(x)
			case string:
				row[j] = x
			}
		}
		t.Head = append(t.Head, row)
		t.Index = append(t.Index, strconv.Itoa(len(t.Index)))
	}
	return t
}

// exact is a number as Python's repr writes a float.
func exact(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func optional(p *float64) string {
	if p == nil {
		return ""
	}
	return exact(*p)
}
