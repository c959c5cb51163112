package export

import (
	"archive/zip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
)

func TestPaperFromLocale(t *testing.T) {
	for env, want := range map[string]string{
		"LANG=en_US.UTF-8": "Letter", "LANG=fr_CA.UTF-8": "Letter", "LANG=en_GB.UTF-8": "A4", "LANG=de_DE@euro": "A4",
		"LANG=C.UTF-8": "A4", "": "A4", "LANG=en_US.UTF-8 LC_PAPER=de_DE.UTF-8": "A4",
		"LANG=de_DE.UTF-8 LC_PAPER=en_US.UTF-8": "Letter", "LC_PAPER=de_DE.UTF-8 LC_ALL=es_MX.UTF-8": "Letter",
	} {
		vars := map[string]string{}
		for _, kv := range strings.Fields(env) {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		if got := Paper(func(k string) string { return vars[k] }); got != want {
			t.Errorf("%q: %s, want %s", env, got, want)
		}
	}
}

func TestAccountantsNumbers(t *testing.T) {
	for v, want := range map[float64]string{1234.5: "1,234.50", -1234.5: "(1,234.50)", 0: "0.00", -0.001: "0.00", 1e6: "1,000,000.00"} {
		if got := moneyText(v); got != want {
			t.Errorf("moneyText(%v) = %s, want %s", v, got, want)
		}
	}
	if pctText(nil) != "–" || pctText(pct(-6.25)) != "(6.2%)" || pctText(pct(12.34)) != "12.3%" {
		t.Errorf("pctText: %s %s %s", pctText(nil), pctText(pct(-6.25)), pctText(pct(12.34)))
	}
}

// The commentary keeps the answer's emphasis, lists and tables as runs,
// each number a run of its own marked as the session checked it; a
// number the grounding did not name is plain text.
func TestCommentaryRuns(t *testing.T) {
	answer := "## Summary\n\nRevenue rose **12.5%** to 1,234.\n\n1. Costs `fell`\n2. Travel 99 below\n\n| line | change |\n|---|---|\n| Cloud | 4,300 |\n"
	var claims []ground.Claim
	for _, n := range []struct {
		s  string
		ok bool
	}{{"12.5%", true}, {"1,234", false}, {"4,300", true}} {
		at := strings.Index(answer, n.s)
		claims = append(claims, ground.Claim{Text: n.s, Grounded: n.ok, Start: at, End: at + len(n.s)})
	}
	blocks := commentary(answer, claims)
	var got []string
	for _, b := range blocks {
		var parts []string
		for _, r := range b.Runs {
			p := r.T
			if r.B {
				p = "*" + p + "*"
			}
			if r.Mono {
				p = "`" + p + "`"
			}
			if r.Mark != "" {
				p = "[" + r.Mark + ":" + p + "]"
			}
			parts = append(parts, p)
		}
		got = append(got, b.Style+" "+strings.Join(parts, ""))
	}
	want := []string{"h *Summary*", "p Revenue rose [grounded:*12.5%*] to [unverified:⟦1,234⟧].", "li 1. Costs `fell`", "li 2. Travel 99 below",
		"row *line*  |  *change*", "row Cloud  |  [grounded:4,300]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// writeZip writes a workbook-shaped zip of the parts given.
func writeZip(t *testing.T, parts map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.xlsx")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, body := range parts {
		w, _ := z.Create(name)
		w.Write([]byte(body))
	}
	z.Close()
	f.Close()
	return p
}

// A workbook is refused for a formula, a macro, an external link, a part
// no report has, or a defined name other than the filter's and the
// print's; a plain one passes.
func TestCheckWorkbookRefuses(t *testing.T) {
	base := map[string]string{"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>",
		"xl/worksheets/sheet1.xml": `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>=cmd|' /C calc'!A0</t></is></c></row></sheetData></worksheet>`}
	if err := CheckWorkbook(writeZip(t, base)); err != nil {
		t.Fatalf("a plain workbook: %v", err)
	}
	for name, edit := range map[string]func(map[string]string){
		"formula": func(p map[string]string) {
			p["xl/worksheets/sheet1.xml"] = `<worksheet><sheetData><row r="1"><c r="A1"><f>SUM(1)</f></c></row></sheetData></worksheet>`
		},
		"macro": func(p map[string]string) { p["xl/vbaProject.bin"] = "x" },
		"macro type": func(p map[string]string) {
			p["[Content_Types].xml"] = `<Types><Override ContentType="application/vnd.ms-excel.sheet.macroEnabled.main+xml"/></Types>`
		},
		"external": func(p map[string]string) {
			p["xl/_rels/workbook.xml.rels"] = `<Relationship Target="http://x" TargetMode="External"/>`
		},
		"link part": func(p map[string]string) { p["xl/externalLinks/externalLink1.xml"] = "<externalLink/>" },
		"defined name": func(p map[string]string) {
			p["xl/workbook.xml"] = `<workbook><definedNames><definedName name="Auto_Open">x</definedName></definedNames></workbook>`
		},
		"not a zip": nil,
	} {
		parts := map[string]string{}
		for k, v := range base {
			parts[k] = v
		}
		p := ""
		if edit == nil {
			p = filepath.Join(t.TempDir(), "w.xlsx")
			os.WriteFile(p, []byte("PK not really"), 0o600)
		} else {
			edit(parts)
			p = writeZip(t, parts)
		}
		if err := CheckWorkbook(p); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
}

func TestCheckPDFRefuses(t *testing.T) {
	write := func(body string) string {
		p := filepath.Join(t.TempDir(), "r.pdf")
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	ok := "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n2 0 obj << /Length 9 >>\nstream\n/JS (x) /AA\nendstream\nendobj\n%%EOF\n"
	if err := CheckPDF(write(ok)); err != nil {
		t.Fatalf("a plain PDF (names inside a stream are data): %v", err)
	}
	for _, bad := range []string{
		"%PDF-1.4\n1 0 obj << /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >> endobj\n%%EOF\n",
		"%PDF-1.4\n1 0 obj << /Type /Annot /A << /S /URI /URI (http://x) >> >> endobj\n%%EOF\n",
		"%PDF-1.4\n1 0 obj << /Type /ObjStm /N 1 >> endobj\n%%EOF\n",
		"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n",
		"GIF89a",
	} {
		if err := CheckPDF(write(bad)); err == nil {
			t.Errorf("passed: %q", bad)
		}
	}
}

// The kernel carries a label one character longer than the report shows,
// so the builder still sees it was long, cuts it and says so: the two
// Python files must agree.
func TestLabelKeptLongerThanShown(t *testing.T) {
	pyConst := func(src, name string) int {
		for _, l := range strings.Split(src, "\n") {
			if v, ok := strings.CutPrefix(l, name+" = "); ok {
				f := strings.Fields(v)
				n, err := strconv.Atoi(strings.ReplaceAll(f[0], "_", ""))
				if err == nil {
					return n
				}
			}
		}
		t.Fatalf("no %s", name)
		return 0
	}
	text, err := reportPy.ReadFile("reportpy/report_text.py")
	if err != nil {
		t.Fatal(err)
	}
	capture, err := os.ReadFile("../pykernel/quarry_kernel/report/capture.py")
	if err != nil {
		t.Fatal(err)
	}
	if keep, shown := pyConst(string(capture), "REPORT_LABEL_KEEP"), pyConst(string(text), "TEXT_MAX"); keep != shown+1 {
		t.Errorf("the kernel keeps %d characters of a label, the report shows %d", keep, shown)
	}
}

// A table the kernel could not carry whole is said to be cut, in the
// spec every format reads.
func TestSpecSaysTheTableWasCut(t *testing.T) {
	dir := reportRecordOf(t, &kernel.Variance{Labels: []string{"line"}, Lines: knownLines, Rows: 250000, BottomLine: "profit"}, "")
	d := newDoc(loadRecord(t, dir))
	spec, files := d.spec(d.report(), []Format{Workbook}, "A4", time.Now())
	if len(spec.Variance.Said) == 0 || spec.Variance.Said[0] != "The table had 250,000 lines; the session kept the first 5 and the Total." {
		t.Errorf("said: %q", spec.Variance.Said)
	}
	if spec.Chart == nil || files["chart.png"] == "" || spec.Subtitle == "" || len(spec.Highlights) != 4 {
		t.Errorf("spec: chart %+v, files %v, subtitle %q, %d key figures", spec.Chart, files, spec.Subtitle, len(spec.Highlights))
	}
}

// A printed table of more than 2,000 lines shows the material ones and
// the Total, and says so.
func TestPrintedLines(t *testing.T) {
	lines := make([]kernel.VarianceLine, 5000)
	for i := range lines {
		lines[i].Material = i%3 == 0
	}
	lines[len(lines)-1].Total = true
	keep, said := printedLines(lines, "this PDF")
	if len(keep) != 1668 || keep[len(keep)-1] != 4999 || said != "The table has 5,000 lines: this PDF lists the 1,667 material ones and the Total; every line is in the workbook." {
		t.Errorf("%d kept (last %d): %s", len(keep), keep[len(keep)-1], said)
	}
	if keep, said := printedLines(lines[:2000], "this page"); keep != nil || said != "" {
		t.Errorf("2,000 lines are cut: %d %q", len(keep), said)
	}

	// More material lines than the page holds: the largest variances, in
	// the table's order, and the sentence says how many were left out.
	for i := range lines {
		lines[i].Material = i%2 == 0
		lines[i].Variance = float64(i % 1000)
	}
	keep, said = printedLines(lines, "this page")
	if len(keep) != 2000 || keep[len(keep)-1] != 4999 || !slices.IsSorted(keep) ||
		said != "The table has 5,000 lines: this page lists the 1,999 largest of its 2,500 material ones and the Total; every line is in the workbook." {
		t.Fatalf("%d kept: %s", len(keep), said)
	}
	printed, least := map[int]bool{}, math.Inf(1)
	for _, i := range keep[:len(keep)-1] {
		if !lines[i].Material {
			t.Fatalf("line %d printed, not material", i)
		}
		printed[i], least = true, min(least, lines[i].Variance)
	}
	for i, ln := range lines {
		if ln.Material && !printed[i] && ln.Variance > least {
			t.Fatalf("line %d (variance %v) left out for one of %v", i, ln.Variance, least)
		}
	}
}

// Every kind of saved table the host sends has a reader in the builder's
// read_table.
func TestTableKindsHaveReaders(t *testing.T) {
	src, err := reportPy.ReadFile("reportpy/report_workbook.py")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	start := strings.Index(body, "def read_table(")
	end := strings.Index(body[start:], "\ndef ")
	if start < 0 || end < 0 {
		t.Fatal("no read_table in report_workbook.py")
	}
	reader := body[start : start+end]
	for ext, kind := range tableKinds {
		if !strings.Contains(reader, "'"+kind+"'") {
			t.Errorf("%s files (%s) have no reader in read_table", ext, kind)
		}
	}
}
