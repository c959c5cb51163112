package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/source/mariadbtest"
)

// A year's budget by month and the actuals so far, wide, as exports
// give them: the report compares the year to date.
var reportLines = []struct {
	account, name string
	base, drift   float64 // the budget's first month, and how far actuals run from it
}{
	{"4000", "Product sales", 100000, 0.07},
	{"4100", "Services", 30000, -0.06},
	{"5000", "Cost of goods sold", 35000, 0.04},
	{"6000", "Salaries", 52000, 0.01},
	{"6100", "Cloud hosting", 9000, 0.18},
	{"6300", "Travel", 4000, -0.25},
}

var monthNames = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func budgetAt(i, m int) float64 { return math.Round(reportLines[i].base * (1 + 0.01*float64(m))) }

// actualAt differs from the budget by the line's drift, changing with the
// quarter, so each quarter's report has numbers of its own.
func actualAt(i, m int) float64 {
	return math.Round(budgetAt(i, m) * (1 + reportLines[i].drift*float64(1+m/3)/2))
}

// writeYear writes the year's budget and the actuals through month
// months (3: the first quarter) into dir.
func writeYear(t *testing.T, dir string, months int) (actuals, budget string) {
	t.Helper()
	actuals, budget = filepath.Join(dir, fmt.Sprintf("actuals_m%d.csv", months)), filepath.Join(dir, "budget_2026.csv")
	var a, b strings.Builder
	a.WriteString("account,line," + strings.Join(monthNames[:months], ",") + "\n")
	b.WriteString("account,line," + strings.Join(monthNames, ",") + "\n")
	for i, l := range reportLines {
		fmt.Fprintf(&a, "%s,%s", l.account, l.name)
		fmt.Fprintf(&b, "%s,%s", l.account, l.name)
		for m := range 12 {
			if m < months {
				fmt.Fprintf(&a, ",%.0f", actualAt(i, m))
			}
			fmt.Fprintf(&b, ",%.0f", budgetAt(i, m))
		}
		a.WriteString("\n")
		b.WriteString("\n")
	}
	if err := os.WriteFile(actuals, []byte(a.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(budget, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return actuals, budget
}

// yearToDate is what each line and the profit must read through month
// months: actual and budget summed over those months.
func yearToDate(months int) (actual, budget []float64) {
	var pa, pb float64
	for i, l := range reportLines {
		var sa, sb float64
		for m := range months {
			sa += actualAt(i, m)
			sb += budgetAt(i, m)
		}
		actual, budget = append(actual, sa), append(budget, sb)
		sign := 1.0
		if !strings.HasPrefix(l.account, "4") {
			sign = -1
		}
		pa, pb = pa+sign*sa, pb+sign*sb
	}
	return append(actual, pa), append(budget, pb)
}

const reportCode = `v = variance("/data/actuals_m3.csv", "/data/budget_2026.csv", period="ytd")
fig = bridge(v)
t = v.iloc[-1]
print(f"PROFIT actual {t.actual:,.2f} budget {t.budget:,.2f}")
v`

// requireYearToDate checks a report's workbook: its Summary's numbers are
// those of the files through month months.
func requireYearToDate(t *testing.T, book string, months int) {
	t.Helper()
	wb := reporttest.ReadWorkbook(t, book, 30)
	actual, budget := yearToDate(months)
	for i := range actual {
		row := strconv.Itoa(5 + i)
		a, _ := wb.CellAt("Summary", "D"+row)
		b, _ := wb.CellAt("Summary", "E"+row)
		if a.V != actual[i] || b.V != budget[i] || a.T != "n" {
			t.Errorf("%s, months 1–%d, row %s: actual %v budget %v, want %v and %v", filepath.Base(book), months, row, a.V, b.V, actual[i], budget[i])
		}
	}
	if wb.Detail["Summary"].Images != 1 || wb.Detail["Summary"].Formulas != 0 {
		t.Errorf("%s: %d pictures, %d formulas on the Summary", book, wb.Detail["Summary"].Images, wb.Detail["Summary"].Formulas)
	}
}

// -p --report writes the three formats and --json lists them; the
// session exported later gives its PDF and its workbook (the database it
// had connected as user@host/db, without the password); quarry rerun
// --report xlsx on two new quarters (the actuals through June, then
// September) writes a workbook each, whose numbers are the new files',
// without any model.
func TestReportHeadlessAndRerun(t *testing.T) {
	sandboxtest.Engine(t)
	home, dir := t.TempDir(), t.TempDir()
	actuals, budget := writeYear(t, dir, 3)
	my := mariadbtest.Start(t)
	my.CreateDB(t, "shop")
	srv := openaitest.New(t, openaitest.ToolCalls(reportCode))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("Year to date: " + strings.TrimSpace(strings.SplitN(req.LastToolResult(), "\n[", 2)[0]))
	})
	out := filepath.Join(dir, "q1")
	r := newRun(t, srv.URL, "-p", "variance report, year to date", actuals, budget, "--db", "shop="+my.URL("shop"),
		"--report", "xlsx,pdf,html", "--json", "--output-dir", out).inHome(home)
	if code := r.exec(4 * time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, r.stdout.String(), r.stderr.String())
	}
	var doc struct {
		Session string
		Report  []string
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(out, "report.html"), filepath.Join(out, "report.xlsx"), filepath.Join(out, "report.pdf")}
	if strings.Join(doc.Report, " ") != strings.Join(want, " ") {
		t.Fatalf("--json report = %q, want %q", doc.Report, want)
	}
	requireYearToDate(t, want[1], 3)
	page, _ := os.ReadFile(want[0])
	if !strings.Contains(string(page), `<section class="report">`) || !strings.Contains(string(page), `<img src="data:image/png;base64,`) {
		t.Errorf("the HTML report lacks its report section or chart")
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// The session has ended: export builds its PDF in a fresh sandbox.
	pdf := filepath.Join(dir, "q1-variance.pdf")
	r = newRun(t, "", "export", doc.Session, "--format", "pdf", "-o", pdf).withoutModel().inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 || strings.TrimSpace(r.stdout.String()) != pdf {
		t.Fatalf("export --format pdf: exit %d, stdout %q\n%s", code, r.stdout.String(), r.stderr.String())
	}
	text := reporttest.PDFText(t, pdf)
	a, b := yearToDate(3)
	for _, n := range []float64{a[0], b[0], a[len(a)-1], b[len(b)-1]} {
		if s := strconv.FormatFloat(n, 'f', 2, 64); !strings.Contains(text, grouped(s)) {
			t.Errorf("the exported PDF lacks %s", grouped(s))
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// And its workbook, which openpyxl opens.
	book := filepath.Join(dir, "q1-variance.xlsx")
	r = newRun(t, "", "export", doc.Session, "--format", "xlsx", "-o", book).withoutModel().inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 || strings.TrimSpace(r.stdout.String()) != book {
		t.Fatalf("export --format xlsx: exit %d, stdout %q\n%s", code, r.stdout.String(), r.stderr.String())
	}
	requireYearToDate(t, book, 3)
	wb := reporttest.ReadWorkbook(t, book, 60)
	if where := my.User + "@" + my.Socket + "/shop"; !slices.Contains(wb.Texts("Sources"), where) {
		t.Errorf("the workbook's Sources lack the database %s:\n%s", where, strings.Join(wb.Texts("Sources"), "\n"))
	}
	for _, sheet := range wb.Sheets {
		if text := strings.Join(wb.Texts(sheet), "\n"); strings.Contains(text, my.Password) || strings.Contains(text, url.QueryEscape(my.Password)) {
			t.Errorf("the password is on the workbook's sheet %s", sheet)
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	for _, months := range []int{6, 9} {
		next, _ := writeYear(t, t.TempDir(), months)
		r = newRun(t, "", "rerun", doc.Session, next, budget, "--report", "xlsx", "--json").withoutModel().inHome(home)
		if code := r.exec(4 * time.Minute); code != 0 {
			t.Fatalf("rerun through month %d: exit %d\n%s", months, code, r.stderr.String())
		}
		var rd struct {
			OutputDir string   `json:"output_dir"`
			Reports   []string `json:"reports"`
		}
		if err := json.Unmarshal(r.stdout.Bytes(), &rd); err != nil {
			t.Fatal(err)
		}
		if len(rd.Reports) != 1 || rd.Reports[0] != filepath.Join(rd.OutputDir, "report.xlsx") {
			t.Fatalf("rerun --report xlsx: reports %q in %s", rd.Reports, rd.OutputDir)
		}
		requireYearToDate(t, rd.Reports[0], months)
		wb := reporttest.ReadWorkbook(t, rd.Reports[0], 40)
		if !strings.Contains(strings.Join(wb.Texts("Summary"), " "), "rerun of "+doc.Session) {
			t.Errorf("the rerun's workbook does not say it is a rerun without commentary")
		}
		requireNoContainers(t, r.cmd.Process.Pid)
	}
}

// grouped puts commas into a number's digits: 1234567.00 is 1,234,567.00.
func grouped(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if neg {
		whole = "(" + whole
		frac += ")"
	}
	return whole + "." + frac
}

// /report in the chat writes the workbook and the PDF and names them;
// /report html the page.
func TestChatReport(t *testing.T) {
	requireChat(t)
	dir := t.TempDir()
	actuals, budget := writeYear(t, dir, 3)
	srv := openaitest.New(t, openaitest.ToolCalls(reportCode))
	srv.Handle(func(req openaitest.Request) openaitest.Reply { return openaitest.Text("Done: the variance is above.") })
	c := startChat(t, dir, srv.URL, actuals, budget)
	c.waitFor("the chat", 3*time.Minute, has("sandbox ready"))
	c.typeLine("variance report, year to date")
	c.waitFor("the answer", 3*time.Minute, has("Done: the variance is above.", "sandbox ready"))
	c.typeLine("/report")
	out := filepath.Join(dir, "out")
	book, pdf := filepath.Join(out, "report.xlsx"), filepath.Join(out, "report.pdf")
	s := c.waitFor("the report", 3*time.Minute, has("Report written:", book, pdf))
	t.Logf("screen:\n%s", s)
	requireYearToDate(t, book, 3)
	if drawn, pages := reporttest.RenderPages(t, pdf); pages == 0 || drawn != pages {
		t.Errorf("pdftoppm drew %d of %d pages", drawn, pages)
	}
	c.typeLine("/report html")
	c.waitFor("the page", time.Minute, has(filepath.Join(out, "report.html")))
	c.keys("C-c")
	c.keys("C-c")
	c.waitExit()
	requireNoContainers(t, c.pid)
}

// --report without -p, an unknown format, and a workbook on --format of
// rerun are mistakes: exit 2, before anything starts.
func TestReportBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--report", "xlsx"},
		{"-p", "hi", "--report", "docx"},
		{"-p", "hi", "--report", ""},
		{"rerun", "latest", "--format", "xlsx"},
		{"rerun", "latest", "--report", "md"},
		{"export", "latest", "--format", "docx"},
	} {
		r := newRun(t, "", args...).withoutModel().inHome(t.TempDir())
		if code := r.exec(time.Minute); code != 2 || !strings.Contains(r.stderr.String(), "--") {
			t.Errorf("quarry %q: exit %d, want 2:\n%s", args, code, r.stderr.String())
		}
	}
}

// 100,000 hostile names through the real kernel into the workbook, as
// variance()'s lines and as a table the cell saved: every one there as
// text, none a formula, cut, without its control characters; LibreOffice
// opens the workbook and reads the names back as text.
func TestReportHostileLines(t *testing.T) {
	sandboxtest.Engine(t)
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("name,amount\n")
	b.WriteString("name,amount\n")
	for i := range 100000 {
		q := `"` + strings.ReplaceAll(reporttest.HostileName(i), `"`, `""`) + `"`
		fmt.Fprintf(&a, "%s,%d\n", q, 100+i%7)
		if i < 2000 {
			fmt.Fprintf(&b, "%s,%d\n", q, 100)
		}
	}
	actuals, budget := filepath.Join(dir, "hostile_actuals.csv"), filepath.Join(dir, "hostile_budget.csv")
	os.WriteFile(actuals, []byte(a.String()), 0o644)
	os.WriteFile(budget, []byte(b.String()), 0o644)
	// variance() on the first 2,000 lines (it reads every label closely:
	// 100,000 of them take a minute), all 100,000 saved as a table.
	srv := openaitest.New(t, openaitest.ToolCalls(`every = pd.read_csv("/data/hostile_actuals.csv")
every.to_csv("/output/hostile_lines.csv", index=False)
v = variance(every.head(2000), "/data/hostile_budget.csv", value="amount", kind="cost")
print(len(every), len(v))`))
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("Done.") })
	out := filepath.Join(dir, "out")
	r := newRun(t, srv.URL, "-p", "variance", actuals, budget, "--report", "xlsx", "--json", "--output-dir", out, "--timeout", "10m")
	if code := r.exec(10 * time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.stderr.String())
	}
	book := filepath.Join(out, "report.xlsx")
	wb := reporttest.ReadWorkbook(t, book, 12)
	for sheet, rows := range map[string]int{"Summary": 2001, "hostile_lines": 100001} {
		d := wb.Detail[sheet]
		if d.Rows < rows || d.Formulas != 0 || d.FormulaLike < rows*3/5 || d.Quoted != d.FormulaLike || d.Control != 0 || d.Longest > 1000 {
			t.Errorf("%s: %d rows, %d formulas, %d formula-like (%d quoted), %d with control characters, longest %d",
				sheet, d.Rows, d.Formulas, d.FormulaLike, d.Quoted, d.Control, d.Longest)
		}
	}
	if c, ok := wb.CellAt("Summary", "A5"); !ok || c.V != "=cmd|' /C calc'!A0" || c.T != "s" || !c.Quote {
		t.Errorf("the first line's name: %+v", c)
	}
	lo := reporttest.LibreOffice(t, book, `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1`)
	for _, name := range []string{"report-Summary.csv", "report-hostile_lines.csv"} {
		got, err := os.ReadFile(filepath.Join(lo, name))
		if err != nil || !strings.Contains(string(got), "\n=cmd|' /C calc'!A0,") || !strings.Contains(string(got), "\n-2+1,") ||
			strings.Contains(string(got), "Err:") || strings.Contains(string(got), "#NAME") {
			t.Errorf("LibreOffice's reading of %s (%v):\n%.800s", name, err, got)
		}
	}
}
