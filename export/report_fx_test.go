package export

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/kernel"
)

// fxVariance is knownLines converted from several currencies: each line's
// FX effect and constant-currency variance add up to its variance, Cloud's
// moved most by the rate; a currency code that tries to be markup.
func fxVariance() *kernel.Variance {
	lines := slices.Clone(knownLines)
	effects := []float64{1500, -200, 300, -2700, 0, -1100}
	for i := range lines {
		fx, cc := effects[i], lines[i].Variance-effects[i]
		lines[i].FX = &kernel.LineFX{Effect: &fx, VarianceCC: &cc}
	}
	eur, eurB, usd := 1.10, 1.05, 1.0
	return &kernel.Variance{Labels: []string{"code", "line"}, Lines: lines, Rows: len(lines), MaterialPct: 5, BottomLine: "profit",
		FX: &kernel.FX{Currencies: []string{"EUR", "USD", "<b>X</b>"}, Rates: map[string]kernel.FXRate{
			"EUR": {Actual: &eur, Budget: &eurB}, "USD": {Actual: &usd, Budget: &usd}, "<b>X</b>": {Actual: &usd}}}}
}

// A constant-currency table gets an FX sheet (each line's reported
// variance, FX effect and constant-currency variance, largest FX effect
// first, the Total last, the rates below), and a section in the PDF and
// on the HTML page, the data's text escaped.
func TestReportFX(t *testing.T) {
	dir := reportRecordOf(t, fxVariance(), "")
	files := writeReport(t, dir, Workbook, PDF)
	rb := reporttest.ReadWorkbook(t, files[0], 20)
	if !slices.Contains(rb.Sheets, "FX") {
		t.Fatalf("sheets %v", rb.Sheets)
	}
	for at, want := range map[string]any{"C1": "variance", "D1": "fx_effect", "E1": "variance_cc", "B2": "Cloud", "D2": -2700.0,
		"E2": 200.0, "C2": -2500.0, "A7": "Total", "D7": -1100.0} {
		if c, _ := rb.CellAt("FX", at); c.V != want {
			t.Errorf("FX %s: %+v, want %v", at, c.V, want)
		}
	}
	if c, _ := rb.CellAt("FX", "D2"); c.Fmt != moneyFormat {
		t.Errorf("FX D2 format %q, want money", c.Fmt)
	}
	var notes []string
	for row := 8; row < 16; row++ {
		if c, _ := rb.CellAt("FX", "A"+strconv.Itoa(row)); c.V != nil {
			notes = append(notes, c.V.(string))
		}
	}
	if n := strings.Join(notes, "\n"); !strings.Contains(n, "EUR: actual rate 1.1, budget rate 1.05") || !strings.Contains(n, "constant currency") {
		t.Errorf("the FX sheet's notes:\n%s", n)
	}
	text := reporttest.PDFText(t, files[1])
	for _, want := range []string{"Constant currency: the FX effect", "(2,700.00)", "EUR: actual rate 1.1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, err := Write(loadRecord(t, dir), HTML, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	for _, want := range []string{"<h3>Constant currency: the FX effect</h3>", "(2,700.00)", "fx effect", "&lt;b&gt;X&lt;/b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>X</b>") {
		t.Error("a currency code reached the page unescaped")
	}
}

// Without rates= there is no FX sheet or section.
func TestReportWithoutFX(t *testing.T) {
	files := writeReport(t, reportRecord(t, knownLines, ""), Workbook, PDF)
	if rb := reporttest.ReadWorkbook(t, files[0], 5); slices.Contains(rb.Sheets, "FX") {
		t.Errorf("sheets %v", rb.Sheets)
	}
	if strings.Contains(reporttest.PDFText(t, files[1]), "Constant currency") {
		t.Error("the PDF has an FX section")
	}
}

// The HTML page shows the lines against the forecast and the prior year
// as the PDF does: a block of columns per comparison.
func TestReportComparisonsOnTheHTMLPage(t *testing.T) {
	lines := slices.Clone(knownLines)
	for i := range lines {
		lines[i].Comparisons = map[string]kernel.LineComparison{
			"forecast": {Amount: lines[i].Actual + 1000, Variance: -1000, Effect: "worse"},
			"prior":    {Amount: lines[i].Actual - 5000, Variance: 5000, Pct: pct(5), Effect: "better"},
		}
	}
	v := &kernel.Variance{Labels: []string{"code", "line"}, Lines: lines, Rows: len(lines), MaterialPct: 5, BottomLine: "profit",
		Comparisons: []string{"forecast", "prior"}}
	dir := reportRecordOf(t, v, "")
	out := filepath.Join(t.TempDir(), "r.html")
	if _, err := Write(loadRecord(t, dir), HTML, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	for _, want := range []string{"<h3>Against Budget, Forecast, Prior year</h3>", "Forecast variance", "Prior year %", "121,000.00", "(1,000.00)", "5.0%"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
