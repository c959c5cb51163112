package export

import (
	"slices"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// The comparisons beside the budget (variance()'s forecast= and prior=),
// laid out as FP&A packs do: a Comparisons sheet with a block of columns
// per comparison (its amount, the variance, the percent), and the same
// table in the PDF. Only the names quarry's kernel gives are kept: the
// rest of the record is the sandbox's word.

// comparisonTitles are the comparisons a report shows, in its order.
var comparisonTitles = []struct{ name, title string }{
	{"budget", "Budget"}, {"forecast", "Forecast"}, {"prior", "Prior year"},
}

// knownComparisons are the names of v's comparisons a report shows,
// budget first.
func knownComparisons(names []string) []string {
	out := []string{"budget"}
	for _, c := range comparisonTitles[1:] {
		if slices.Contains(names, c.name) {
			out = append(out, c.name)
		}
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

// comparisonTitle is the heading of a comparison's block.
func comparisonTitle(name string) string {
	for _, c := range comparisonTitles {
		if c.name == name {
			return c.title
		}
	}
	return name
}

// lineComparisons are a line's comparisons under the names kept, the
// budget's from the line itself.
func lineComparisons(ln kernel.VarianceLine, names []string) map[string]kernel.LineComparison {
	if len(names) == 0 {
		return nil
	}
	out := map[string]kernel.LineComparison{"budget": {Amount: ln.Budget, Variance: ln.Variance, Pct: ln.Pct, Effect: ln.Effect, Material: ln.Material}}
	for _, n := range names[1:] {
		if c, ok := ln.Comparisons[n]; ok {
			c.Effect = clean1(c.Effect)
			out[n] = c
		}
	}
	return out
}

// comparisonText is each comparison's amount, variance and percent as the
// PDF prints them.
func comparisonText(cs map[string]kernel.LineComparison) map[string][3]string {
	if len(cs) == 0 {
		return nil
	}
	out := map[string][3]string{}
	for n, c := range cs {
		out[n] = [3]string{moneyText(c.Amount), moneyText(c.Variance), pctText(c.Pct)}
	}
	return out
}

// comparisonsHTML is the HTML page's table of lines against each
// comparison, as the PDF prints it; nil for the budget alone.
func comparisonsHTML(v *kernel.Variance, lines []kernel.VarianceLine) *htmlAnalysis {
	names := knownComparisons(v.Comparisons)
	if names == nil {
		return nil
	}
	var titles []string
	h := &htmlAnalysis{}
	for _, l := range v.Labels {
		h.Head = append(h.Head, htmlHead{Text: clean1(l)})
	}
	h.Head = append(h.Head, htmlHead{Text: "Actual", Num: true})
	for _, n := range names {
		t := comparisonTitle(n)
		titles = append(titles, t)
		h.Head = append(h.Head, htmlHead{Text: t, Num: true}, htmlHead{Text: t + " variance", Num: true}, htmlHead{Text: t + " %", Num: true})
	}
	h.Title = "Against " + strings.Join(titles, ", ")
	for _, ln := range lines {
		var row []htmlAmount
		for i := range v.Labels {
			l := ""
			if j := i - (len(v.Labels) - len(ln.Label)); j >= 0 && j < len(ln.Label) {
				l = clean1(ln.Label[j])
			}
			row = append(row, htmlAmount{Text: l})
		}
		row = append(row, htmlAmount{moneyText(ln.Actual), negative(ln.Actual)})
		texts := comparisonText(lineComparisons(ln, names))
		for _, n := range names {
			for _, t := range texts[n] {
				row = append(row, htmlAmount{Text: t, Negative: strings.HasPrefix(t, "(")})
			}
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}
