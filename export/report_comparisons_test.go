package export

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/kernel"
)

// A variance table with a forecast and a prior year beside the budget
// gets a Comparisons sheet with a block of columns per comparison (its
// amount, variance, percent, effect; the variance filled by better or
// worse) and the same table in the PDF; a comparison name the report does
// not know is left out.
func TestReportComparisons(t *testing.T) {
	lines := slices.Clone(knownLines)
	for i := range lines {
		ln := lines[i]
		lines[i].Comparisons = map[string]kernel.LineComparison{
			"forecast": {Amount: ln.Actual + 1000, Variance: -1000, Pct: pct(-1000 / (ln.Actual + 1000) * 100), Effect: "worse"},
			"prior":    {Amount: ln.Actual - 5000, Variance: 5000, Pct: pct(5000 / (ln.Actual - 5000) * 100), Effect: "better", Material: true},
			"=evil":    {Amount: 1, Variance: 1, Effect: "better"},
		}
	}
	v := &kernel.Variance{Labels: []string{"code", "line"}, Lines: lines, Rows: len(lines), MaterialPct: 5, BottomLine: "profit",
		Comparisons: []string{"forecast", "prior", "=evil"}}
	dir := reportRecordOf(t, v, "")
	files := writeReport(t, dir, Workbook, PDF)
	rb := reporttest.ReadWorkbook(t, files[0], 20)
	if !slices.Contains(rb.Sheets, "Comparisons") {
		t.Fatalf("sheets %v", rb.Sheets)
	}
	for at, want := range map[string]any{"D1": "Budget", "H1": "Forecast", "L1": "Prior year", "C2": "Actual", "M2": "Variance"} {
		if c, _ := rb.CellAt("Comparisons", at); c.V != want {
			t.Errorf("%s: %+v, want %v", at, c, want)
		}
	}
	c, _ := rb.CellAt("Comparisons", "H3") // Product sales' forecast
	if got, _ := c.V.(float64); got != 121000 || c.Fmt != moneyFormat {
		t.Errorf("H3: %+v, want the forecast 121000 in the money format", c)
	}
	if c, _ := rb.CellAt("Comparisons", "I3"); c.V != -1000.0 || c.Fill != "FFC7CE" {
		t.Errorf("I3: %+v, want -1000 filled as worse", c)
	}
	if c, _ := rb.CellAt("Comparisons", "N3"); c.Fmt != percentFormat {
		t.Errorf("N3: %+v, want a percentage", c)
	}
	if c, ok := rb.CellAt("Comparisons", "P2"); ok && c.V != nil {
		t.Errorf("a comparison the report does not know got a block: %+v", c)
	}
	text := reporttest.PDFText(t, files[1])
	for _, want := range []string{"Against Budget, Forecast, Prior year", "121,000.00", "(1,000.00)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	if strings.Contains(text, "=evil") {
		t.Error("the unknown comparison reached the PDF")
	}
}
