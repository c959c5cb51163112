package export

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/kernel"
)

// 100,000 lines and rows of hostile names reach the workbook as text:
// no formula, every formula-like cell a string with its quote prefix, no
// control character, nothing longer than the cut; LibreOffice opens it
// and its cells read back as the text, not as anything computed.
func TestReportHostileData(t *testing.T) {
	const n = 100000
	lines := make([]kernel.VarianceLine, 0, n+1)
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{"name", "amount"})
	for i := 0; i < n; i++ {
		name := reporttest.HostileName(i)
		lines = append(lines, kernel.VarianceLine{Label: []string{name}, Kind: "cost", Actual: float64(i), Budget: float64(i + 1), Variance: -1, Pct: pct(-100 / float64(i+1)), Effect: "better"})
		w.Write([]string{name, fmt.Sprint(i)})
	}
	w.Flush()
	lines = append(lines, kernel.VarianceLine{Label: []string{"Total"}, Kind: "cost", Actual: 1, Budget: 2, Variance: -1, Pct: pct(-50), Effect: "better", Total: true})
	dir := reportRecord(t, lines, b.String())
	files := writeReport(t, dir, Workbook, PDF)
	if err := CheckWorkbook(files[0]); err != nil {
		t.Fatal(err)
	}
	rb := reporttest.ReadWorkbook(t, files[0], 40)
	for _, sheet := range []string{"Summary", "variance"} {
		d := rb.Detail[sheet]
		if d.Rows < n || d.Formulas != 0 || d.FormulaLike < n/2 || d.Quoted != d.FormulaLike || d.Control != 0 || d.Longest > 1000 {
			t.Errorf("%s: %d rows, %d formulas, %d formula-like of which %d quoted, %d with control characters, longest %d",
				sheet, d.Rows, d.Formulas, d.FormulaLike, d.Quoted, d.Control, d.Longest)
		}
	}
	if c, _ := rb.CellAt("variance", "A2"); c.V != "=cmd|' /C calc'!A0" || c.T != "s" || !c.Quote {
		t.Errorf("the first hostile name: %+v", c)
	}
	if c, _ := rb.CellAt("variance", "A6"); c.V != " =1+4[31mred " {
		t.Errorf("the name with control characters: %+v", c)
	}
	if c, _ := rb.CellAt("variance", "A7"); !strings.HasSuffix(c.V.(string), "…") || len([]rune(c.V.(string))) != 1000 {
		t.Errorf("the long label is not cut to 1,000 characters: %d", len([]rune(fmt.Sprint(c.V))))
	}
	src := strings.Join(rb.Texts("Sources"), " ")
	if !strings.Contains(src, "cut to 1,000 characters") || !strings.Contains(src, "kept as text") {
		t.Errorf("Sources do not say what was cut and kept as text:\n%s", src[max(0, len(src)-1500):])
	}

	// LibreOffice: every sheet as CSV, the cells as the text they hold.
	lo := reporttest.LibreOffice(t, files[0], `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1`)
	got, err := os.ReadFile(filepath.Join(lo, "report-variance.csv"))
	if err != nil {
		entries, _ := os.ReadDir(lo)
		t.Fatalf("LibreOffice's CSV of the saved table: %v (it wrote %v)", err, entries)
	}
	for _, want := range []string{"\n=cmd|' /C calc'!A0,0\n", "\n\"+SUM(1,1)\",1\n", "\n-2+1,2\n", "\n\"@HYPERLINK(\"\"http://127.0.0.1:9/3\"\")\",3\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("LibreOffice's reading lacks %s:\n%.600s", want, got)
		}
	}
	for _, bad := range []string{"#NAME", "Err:", "#VALUE"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("LibreOffice computed a cell (%s):\n%.600s", bad, got)
		}
	}
	if err := CheckPDF(files[1]); err != nil {
		t.Error(err)
	}
}
