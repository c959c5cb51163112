package export

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// Constant currency (variance()'s rates=): the reported variance split
// into the FX effect and the variance at constant currency, as one more
// analysis of the report (report_analyses.go): an FX sheet with every
// line, the rates below, and a section of the PDF and the HTML page with
// the lines the rate moved most. It is made here from the variance table
// the record kept, so it is the table's own numbers.

// fxAnalysis is v's FX split as an analysis, or nil when v was not
// converted.
func fxAnalysis(v *kernel.Variance) *kernel.Analysis {
	if v == nil || v.FX == nil {
		return nil
	}
	a := &kernel.Analysis{Kind: "fx", Method: "the variance at constant currency puts the actuals at the budget rate " +
		"against the budget; the FX effect is the reported variance less it: the part of the variance that is only the rate"}
	a.Columns = append(slices.Clone(v.Labels), "variance", "fx_effect", "variance_cc", "actual", "budget")
	for range v.Labels {
		a.Numeric = append(a.Numeric, false)
	}
	a.Numeric = append(a.Numeric, true, true, true, true, true)
	var rows, total [][]any
	effect := func(r []any) float64 {
		if f, ok := r[len(v.Labels)+1].(float64); ok {
			return math.Abs(f)
		}
		return -1
	}
	for _, ln := range v.Lines {
		if ln.FX == nil {
			continue
		}
		row := make([]any, 0, len(a.Columns))
		for i := range v.Labels {
			l := ""
			if i < len(ln.Label) {
				l = ln.Label[i]
			}
			if ln.Total { // "Total" first, where the analyses' sheets look for it
				l = ""
				if i == 0 {
					l = "Total"
				}
			}
			row = append(row, l)
		}
		row = append(row, ln.Variance, number(ln.FX.Effect), number(ln.FX.VarianceCC), ln.Actual, ln.Budget)
		if ln.Total {
			total = append(total, row)
		} else {
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, func(x, y []any) int { return -cmpFloat(effect(x), effect(y)) })
	a.Rows = append(rows, total...)
	a.TotalRows = len(a.Rows)
	for _, c := range v.FX.Currencies {
		r, ok := v.FX.Rates[c]
		if !ok {
			continue
		}
		a.Notes = append(a.Notes, fmt.Sprintf("%s: actual rate %s, budget rate %s", c, rateText(r.Actual), rateText(r.Budget)))
	}
	if len(a.Rows) == 0 {
		return nil
	}
	return a
}

// number is a kernel's optional number as an analysis cell: nil for none.
func number(p *float64) any {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	return *p
}

func rateText(p *float64) string {
	if p == nil {
		return noAmount
	}
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(*p, 'f', 6, 64), "0"), ".")
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
