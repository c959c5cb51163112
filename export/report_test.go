package export

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

// knownCSV is a saved table; its last amount is wider grouped
// (1,234,567,890,123.50) than as Python writes it.
const knownCSV = "code,line,actual\n4000,Product sales,120000\n4100,Services,45000.5\n5000,Salaries,1234567890123.5\n"

// The workbook read back with openpyxl holds the values the cells
// computed as numbers, in accountants' formats, the better and worse
// fills, the bold Total, the frozen header, the filter, the chart, the
// commentary with its unverified number marked, columns as wide as what
// they show, the saved table, the sources (a database as user@host/db)
// and the code.
func TestReportWorkbookReadBack(t *testing.T) {
	lines := slices.Clone(knownLines)
	// A label longer than a column may be: its column stops at the cap.
	lines[2].Label = []string{"5000", "Salaries, wages and the employer's social security contributions, sales team"}
	dir := reportRecord(t, lines, knownCSV)
	withSources(t, dir, session.RecordedSource{Name: "sales", Where: "analyst@db.example.com:5432/sales", Kind: "postgres"})
	files := writeReport(t, dir, Workbook, PDF)
	if len(files) != 2 || files[0] != filepath.Join(dir, "report.xlsx") || files[1] != filepath.Join(dir, "report.pdf") {
		t.Fatalf("written: %v", files)
	}
	rb := reporttest.ReadWorkbook(t, files[0], 60)
	if strings.Join(rb.Sheets, ",") != "Summary,variance,Sources,Code" {
		t.Fatalf("sheets: %v", rb.Sheets)
	}
	s := rb.Detail["Summary"]
	if s.Freeze != "C5" || s.Filter != "A4:I9" || s.Images != 1 || s.Formulas != 0 {
		t.Errorf("Summary: freeze %q, filter %q, %d images, %d formulas", s.Freeze, s.Filter, s.Images, s.Formulas)
	}
	for i, ln := range lines {
		row := strconv.Itoa(5 + i)
		for col, want := range map[string]float64{"D": ln.Actual, "E": ln.Budget, "F": ln.Variance} {
			c, ok := rb.CellAt("Summary", col+row)
			got, isNum := c.V.(float64)
			if !ok || c.T != "n" || !isNum || got != want || c.Fmt != moneyFormat {
				t.Errorf("%s%s: %+v, want the number %v in %q", col, row, c, want, moneyFormat)
			}
		}
		c, _ := rb.CellAt("Summary", "G"+row)
		if ln.Pct == nil {
			if c.V != nil {
				t.Errorf("G%s: %+v, want empty (no budget)", row, c)
			}
		} else if got, _ := c.V.(float64); math.Abs(got-*ln.Pct/100) > 1e-12 || c.Fmt != percentFormat {
			t.Errorf("G%s: %+v, want %v as a percentage", row, c, *ln.Pct/100)
		}
		eff, _ := rb.CellAt("Summary", "H"+row)
		wantFill := map[string]string{"better": "C6EFCE", "worse": "FFC7CE"}[ln.Effect]
		if eff.V != ln.Effect || eff.Fill != wantFill {
			t.Errorf("H%s: %+v, want %s filled %s", row, eff, ln.Effect, wantFill)
		}
		if v, _ := rb.CellAt("Summary", "F"+row); v.Fill != wantFill {
			t.Errorf("F%s's fill %q, want %q", row, v.Fill, wantFill)
		}
		if m, _ := rb.CellAt("Summary", "I"+row); m.V != ln.Material || m.T != "b" {
			t.Errorf("I%s: %+v, want %v", row, m, ln.Material)
		}
		label, _ := rb.CellAt("Summary", "B"+row)
		if label.V != ln.Label[1] || label.Bold != ln.Total {
			t.Errorf("B%s: %+v, want %q bold %v", row, label, ln.Label[1], ln.Total)
		}
	}
	panel := strings.Join(rb.Texts("Summary"), " ") // the lines wrapped at spaces
	for _, want := range []string{"Key figures", "Bottom line (profit): actual 94,299.45 against budget 78,000.00: 16,299.45 better, 20.9% of budget.",
		"Material lines: 4 of 5 (2 worse, 2 better).", "Commentary", "Profit came in at 94,299.45", "Cloud was ⟦9,999⟧ under budget.",
		unverifiedLegend + "9,999", "inferred kinds: 4000–4999 revenue"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the Summary's text lacks %q:\n%s", want, panel)
		}
	}
	if strings.Contains(panel, "⟦94,299.45⟧") {
		t.Errorf("a grounded number is marked:\n%s", panel)
	}
	// Every column as wide as the longest text it shows, up to the cap.
	shown := map[string][]string{"A": {"code"}, "B": {"line"}, "C": {"Kind"}, "D": {"Actual"}, "E": {"Budget"},
		"F": {"Variance"}, "G": {"Variance %"}, "H": {"Effect"}, "I": {"Material", "FALSE"}}
	for _, ln := range lines {
		for col, text := range map[string]string{"A": ln.Label[0], "B": ln.Label[1], "C": ln.Kind, "D": moneyText(ln.Actual),
			"E": moneyText(ln.Budget), "F": moneyText(ln.Variance), "G": pctText(ln.Pct), "H": ln.Effect} {
			shown[col] = append(shown[col], text)
		}
	}
	requireWidths(t, rb, "Summary", shown)
	requireWidths(t, rb, "variance", map[string][]string{"A": {"code", "4000"}, "B": {"line", "Product sales"},
		"C": {"actual", "120,000.00", "1,234,567,890,123.50"}})
	if w := rb.Detail["Summary"].Widths["B"]; w != widthCap {
		t.Errorf("the label column of %d characters is %v wide, want the cap %v", len(lines[2].Label[1]), w, widthCap)
	}

	tab := rb.Detail["variance"]
	if tab.Freeze != "A2" || tab.Filter != "A1:C4" {
		t.Errorf("the saved table's sheet: freeze %q filter %q", tab.Freeze, tab.Filter)
	}
	if c, _ := rb.CellAt("variance", "C3"); c.V != 45000.5 || c.T != "n" {
		t.Errorf("C3 of the saved table: %+v, want the number 45000.5", c)
	}
	src := strings.Join(rb.Texts("Sources"), "\n")
	for _, want := range []string{"actuals_q2.csv", "/home/ana/budget_q2.csv", strings.Repeat("0123456789abcdef", 4),
		"Variance report for Q2, with a bridge", "gpt-fake", "2026-11-29 17:32 UTC", "variance.csv"} {
		if !strings.Contains(src, want) {
			t.Errorf("Sources lacks %q:\n%s", want, src)
		}
	}
	// The database: a row under its heading, its name and where it is.
	if head, db := sheetRow(rb, "Sources", "Database"), sheetRow(rb, "Sources", "sales"); head["B"] != "Where (user@host/db)" ||
		db["B"] != "analyst@db.example.com:5432/sales" || len(db) != 2 {
		t.Errorf("Sources' database rows: %v, %v", head, db)
	}
	code := strings.Join(rb.Texts("Code"), "\n")
	if !strings.Contains(code, "fig = bridge(v)") || !strings.Contains(code, "v = variance('/data/actuals_q2.csv', '/data/budget_q2.csv')") {
		t.Errorf("Code:\n%s", code)
	}

	// LibreOffice opens it and converts it to PDF, whose text holds the
	// amounts as the formats show them.
	lo := reporttest.LibreOffice(t, files[0], "pdf")
	text := reporttest.PDFText(t, filepath.Join(lo, "report.pdf"))
	for _, want := range []string{"120,000.00", "(3,000.00)", "(20.8%)", "94,299.45"} {
		if !strings.Contains(text, want) {
			t.Errorf("LibreOffice's PDF of the workbook lacks %q:\n%s", want, text)
		}
	}
}

// The PDF's text holds every amount of the table as the report prints
// it, the commentary with its mark and the sources, and every page
// renders.
func TestReportPDF(t *testing.T) {
	dir := reportRecord(t, knownLines, "")
	files := writeReport(t, dir, PDF)
	text := reporttest.PDFText(t, files[0])
	for _, ln := range knownLines {
		for _, want := range []string{moneyText(ln.Actual), moneyText(ln.Budget), moneyText(ln.Variance), pctText(ln.Pct), ln.Label[1]} {
			if !strings.Contains(text, want) {
				t.Errorf("the PDF lacks %q (line %v):\n%s", want, ln.Label, text)
			}
		}
	}
	for _, want := range []string{"Variance report", "Commentary", "⟦9,999⟧", "Sources", "actuals_q2.csv", "page 1 of"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, text)
		}
	}
	if drawn, pages := reporttest.RenderPages(t, files[0]); pages < 1 || drawn != pages {
		t.Errorf("pdftoppm drew %d of %d pages", drawn, pages)
	}
	if err := CheckPDF(files[0]); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.xlsx")); err == nil {
		t.Error("a workbook was written though only the PDF was asked for")
	}
}

// The HTML page opens with the same report: the table with better and
// worse in colour and words, negatives in parentheses, the bold Total,
// the chart, the key figures, the commentary with its mark; a label
// cannot make markup.
func TestReportHTML(t *testing.T) {
	lines := append([]kernel.VarianceLine(nil), knownLines...)
	lines[1].Label = []string{"4100", "<img src=x onerror=alert(1)>Services"}
	dir := reportRecord(t, lines, "")
	page := filepath.Join(dir, "report.html")
	if _, err := Write(loadRecord(t, dir), HTML, page); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`<section class="report">`, "<h2>Variance report: actuals against budget</h2>",
		`<td class="num">120,000.00</td>`, `<td class="num neg worse">(3,000.00)</td>`, `<td class="num neg worse">(6.2%)</td>`,
		`<td class="better">better</td>`, `<tr class="total">`, `<td class="num worse">–</td>`,
		"&lt;img src=x onerror=alert(1)&gt;Services", `<img src="data:image/png;base64,`,
		"Material lines: 4 of 5 (2 worse, 2 better).", `<span class="number unverified"`, "<h3>Commentary</h3>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Index(s, `<section class="report">`) > strings.Index(s, "<h2>1. Question</h2>") {
		t.Error("the report is not at the top of the page")
	}
}

// A session without a variance() table still gets its report: the last
// answer as the commentary, the sources and the code, and the Summary
// says what it lacks.
func TestReportWithoutVariance(t *testing.T) {
	dir := writeRecord(t, 2, 2)
	files := writeReport(t, dir, Workbook, PDF)
	rb := reporttest.ReadWorkbook(t, files[0], 40)
	summary := strings.Join(rb.Texts("Summary"), " ")
	for _, want := range []string{"Report", "No variance() table in this session", "Commentary", "Answer 2: total 270004."} {
		if !strings.Contains(summary, want) {
			t.Errorf("the Summary lacks %q:\n%s", want, summary)
		}
	}
	if code := strings.Join(rb.Texts("Code"), " "); !strings.Contains(code, "v['Nowhere']") {
		t.Errorf("the Code sheet lacks the failed cell's code:\n%s", code)
	}
	if text := reporttest.PDFText(t, files[1]); !strings.Contains(text, "Answer 2: total 270004.") || !strings.Contains(text, "q1.csv") {
		t.Errorf("the PDF:\n%s", text)
	}
}

// The PDF's paper follows the locale's (Letter for the US), and turns to
// landscape for a table too wide for the page.
func TestReportPDFPaper(t *testing.T) {
	wide := make([]kernel.VarianceLine, len(knownLines))
	for i, ln := range knownLines {
		ln.Label = []string{ln.Label[0], "Operations and facilities, " + ln.Label[1], "Region " + ln.Label[1] + " North America"}
		wide[i] = ln
	}
	for _, c := range []struct {
		lines       []kernel.VarianceLine
		labels      []string
		paper, want string
	}{
		{knownLines, []string{"code", "line"}, "A4", "595.276 x 841.89"},
		{knownLines, []string{"code", "line"}, "Letter", "612 x 792"},
		{wide, []string{"code", "department", "region"}, "A4", "841.89 x 595.276"},
		{wide, []string{"code", "department", "region"}, "Letter", "792 x 612"},
	} {
		dir := reportRecordOf(t, &kernel.Variance{Labels: c.labels, Lines: c.lines, Rows: len(c.lines), MaterialPct: 5, BottomLine: "profit"}, "")
		b := session.Builder{Engine: sandboxtest.Engine(t)}
		files, err := WriteReport(context.Background(), loadRecord(t, dir), b, ReportOptions{Formats: []Format{PDF}, Paper: c.paper})
		if err != nil {
			t.Fatal(err)
		}
		if got := reporttest.PageSize(t, files[0]); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s, %d label columns: page %s, want %s", c.paper, len(c.labels), got, c.want)
		}
	}
}

// widthCap is the widest a column is made (report_workbook.py).
const widthCap = 60

// requireWidths checks that each column of a sheet is as wide as the
// longest text it shows, or the cap, and no wider than the cap.
func requireWidths(t *testing.T, rb reporttest.Workbook, sheet string, shown map[string][]string) {
	t.Helper()
	for col, texts := range shown {
		longest := 0
		for _, s := range texts {
			longest = max(longest, utf8.RuneCountInString(s))
		}
		if w := rb.Detail[sheet].Widths[col]; w < float64(min(longest, widthCap)) || w > widthCap {
			t.Errorf("%s!%s is %v wide: want at least %d (its longest text) and at most %d", sheet, col, w, min(longest, widthCap), widthCap)
		}
	}
}

// sheetRow is the row of a sheet's first rows whose column A holds first,
// as its texts by column letter.
func sheetRow(rb reporttest.Workbook, sheet, first string) map[string]any {
	for _, row := range rb.Detail[sheet].First {
		if len(row) > 0 && row[0].At[:1] == "A" && row[0].V == first {
			out := map[string]any{}
			for _, c := range row {
				out[strings.TrimRight(c.At, "0123456789")] = c.V
			}
			return out
		}
	}
	return nil
}
