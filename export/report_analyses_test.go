package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// withAnalyses appends a cell whose report holds the analyses to a record.
func withAnalyses(t *testing.T, dir string, as ...kernel.Analysis) {
	t.Helper()
	e := session.Entry{Kind: session.EntryCell, Time: time.Date(2026, 11, 29, 17, 33, 0, 0, time.UTC),
		Cell: &session.Cell{Num: 3, Status: session.CellOK, Code: "p = pvm(a, b, by='product')\ne = explain(v, gl)",
			Result: kernel.Result{Report: &kernel.Report{Analyses: as}}}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, session.RecordName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

var knownPVM = kernel.Analysis{Kind: "pvm",
	Columns:   []string{"product", "status", "actual_units", "budget_units", "actual", "budget", "variance", "price", "volume", "mix", "new_lost", "effect"},
	Numeric:   []bool{false, false, true, true, true, true, true, true, true, true, true, false},
	TotalRows: 3, Notes: []string{"1 member only in the actuals (new): new_lost holds its actual: 'N'"},
	Method: "price = (AP - BP) * AU; volume = (AU_total - BU_total) * BMix * BP",
	Rows: [][]any{
		{"B", "continuing", 80.0, 100.0, 1520.0, 2000.0, -480.0, -80.0, 0.0, -400.0, 0.0, "worse"},
		{"=HYPERLINK(\"http://x\")", "new", 5.0, 0.0, 250.0, 0.0, 250.0, 0.0, 0.0, 0.0, 250.0, "better"},
		{"Total", "", 205.0, 200.0, 1770.0, 2000.0, -230.0, -80.0, 0.0, -400.0, 250.0, "worse"},
	}}

var knownExplain = kernel.Analysis{Kind: "explain",
	Columns:   []string{"line", "dimension", "member", "actual", "budget", "variance", "share", "basis"},
	Numeric:   []bool{false, false, false, true, true, true, true, false},
	TotalRows: 2, Notes: []string{"the detail's accounts are the column 'Account'"},
	Rows: [][]any{
		{"Travel", "Vendor", "Delta", 12000.0, nil, 4000.0, 0.6666666667, "share of actuals"},
		{"Travel", "Vendor", "Hilton", 6000.0, nil, 2000.0, 0.3333333333, "share of actuals"},
	}}

// The workbook gives each analysis a sheet (every row, amounts in the
// money format, shares in percent, the Total bold, the notes and the
// method below, a cell that looks like a formula kept as text), and the
// PDF a section with its rows as the host formats amounts.
func TestReportAnalysesSheetsAndPDF(t *testing.T) {
	dir := reportRecord(t, knownLines, "")
	withAnalyses(t, dir, knownPVM, knownExplain)
	files := writeReport(t, dir, Workbook, PDF)
	rb := reporttest.ReadWorkbook(t, files[0], 40)
	if got := strings.Join(rb.Sheets, ","); got != "Summary,Drivers,Price volume mix,Sources,Code" {
		t.Fatalf("sheets: %s", got)
	}
	c, ok := rb.CellAt("Price volume mix", "G4")
	if got, _ := c.V.(float64); !ok || got != -230 || c.Fmt != moneyFormat || !c.Bold {
		t.Errorf("the Total's variance: %+v, want -230 bold in the money format", c)
	}
	if c, _ := rb.CellAt("Price volume mix", "A3"); c.V != "=HYPERLINK(\"http://x\")" || c.T != "s" {
		t.Errorf("a member like a formula: %+v, want it as text", c)
	}
	if c, _ := rb.CellAt("Price volume mix", "C2"); c.Fmt != "#,##0" {
		t.Errorf("units: %+v, want whole numbers", c)
	}
	if c, _ := rb.CellAt("Drivers", "G2"); c.Fmt != percentFormat || c.V != 0.6666666667 {
		t.Errorf("a share: %+v", c)
	}
	if c, _ := rb.CellAt("Drivers", "E2"); c.V != nil {
		t.Errorf("no budget by member: %+v, want an empty cell", c)
	}
	var below []string
	for _, at := range []string{"A6", "A7", "A8"} {
		if c, ok := rb.CellAt("Price volume mix", at); ok {
			s, _ := c.V.(string)
			below = append(below, s)
		}
	}
	if text := strings.Join(below, "\n"); !strings.Contains(text, "only in the actuals") || !strings.Contains(text, "Method: price = (AP - BP) * AU") {
		t.Errorf("the notes and method below the rows: %q", text)
	}
	text := reporttest.PDFText(t, files[1])
	for _, want := range []string{"Drivers of the variance", "Price, volume and mix", "Delta", "4,000.00", "66.7%", "(480.00)", "(230.00)", "new lost"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
}

// The HTML page shows each analysis's largest rows, its text escaped.
func TestReportAnalysesOnTheHTMLPage(t *testing.T) {
	dir := reportRecord(t, knownLines, "")
	bad := knownPVM
	bad.Rows = append([][]any{{"<script>alert(1)</script>", "new", 1.0, 0.0, 5.0, 0.0, 5.0, 0.0, 0.0, 0.0, 5.0, "better"}}, knownPVM.Rows...)
	withAnalyses(t, dir, bad, knownExplain)
	out := filepath.Join(t.TempDir(), "r.html")
	if _, err := Write(loadRecord(t, dir), HTML, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	for _, want := range []string{"<h3>Drivers of the variance</h3>", "<h3>Price, volume and mix</h3>", "Delta", "4,000.00", "66.7%", "(480.00)", "new lost", "&lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a member's text reached the page unescaped")
	}
	if i, j := strings.Index(page, "Drivers of the variance"), strings.Index(page, "Price, volume and mix"); i < 0 || j < i {
		t.Errorf("the analyses' order: drivers at %d, pvm at %d", i, j)
	}
}
