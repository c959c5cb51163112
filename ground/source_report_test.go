package ground

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// A cell that computed explain(), pvm() and a variance table against the
// forecast in constant currency without printing them: the answer's
// numbers quoting those tables are grounded in them (the report shows
// them), a number in none of them is not.
func TestKeptTablesGroundAnswers(t *testing.T) {
	pct, fx, cc, fpct := 15.9259259259, 1234.5, 3065.5, -2.1
	rep := &kernel.Report{
		Variance: &kernel.Variance{Labels: []string{"account", "line"}, Rows: 2, Comparisons: []string{"forecast"},
			FX: &kernel.FX{Currencies: []string{"EUR"}},
			Lines: []kernel.VarianceLine{
				{Label: []string{"6100", "Cloud hosting"}, Actual: 31300, Budget: 27000, Variance: 4300, Pct: &pct, Material: true,
					Comparisons: map[string]kernel.LineComparison{"forecast": {Amount: 31980, Variance: -680, Pct: &fpct}},
					FX:          &kernel.LineFX{VarianceCC: &cc, Effect: &fx}},
				{Label: []string{"", "Total"}, Actual: 31300, Budget: 27000, Variance: 4300, Pct: &pct, Total: true},
			}},
		Analyses: []kernel.Analysis{{Kind: "explain", Columns: []string{"line", "dimension", "member", "variance", "share"},
			Numeric: []bool{false, false, false, true, true}, TotalRows: 2,
			Rows: [][]any{{"6100 · Cloud hosting", "vendor", "AWS", 2500.0, 0.5813953488}, {"6100 · Cloud hosting", "vendor", "Datadog", 1500.0, 0.3488372093}}}},
	}
	srcs := FromResult(3, kernel.Result{Stdout: "done\n", Report: rep})
	answer := "Cloud hosting is 4,300 over budget (+15.9%), 680 under the forecast; 1,234.50 of it is the euro, " +
		"3,065.50 at constant currency. AWS drove 2,500 of it (58%) and Datadog 1,500. Rent moved 9,876."
	cs := Check(Input{Answer: answer, Sources: srcs})
	var unverified []string
	for _, c := range Unverified(cs) {
		unverified = append(unverified, c.Text)
	}
	if strings.Join(unverified, ",") != "9,876" {
		t.Errorf("unverified %q, want only 9,876; claims %+v", unverified, cs)
	}
	for _, c := range cs {
		if c.Grounded && (c.Cell == nil || *c.Cell != 3) {
			t.Errorf("%s grounded in cell %v, want 3", c.Text, c.Cell)
		}
	}
	// Without the kept tables the same answer has nothing to stand on.
	if n := len(Unverified(Check(Input{Answer: answer, Sources: FromResult(3, kernel.Result{Stdout: "done\n"})}))); n < 9 {
		t.Errorf("without the kept tables only %d numbers are unverified", n)
	}
}
