package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/notebook"
)

// nbformatPython is a Python that has nbformat (Debian's python3-nbformat).
func nbformatPython(t *testing.T) string {
	t.Helper()
	return hosttest.Python(t, "nbformat")
}

// The notebook is valid nbformat 4 (checked by nbformat itself) and has a
// Markdown cell per question and answer, a code cell per cell with its
// execution count and outputs of each kind.
func TestNotebookIsValidNbformat(t *testing.T) {
	py := nbformatPython(t)
	rec := loadRecord(t, writeRecord(t, 2, 3))
	path := filepath.Join(t.TempDir(), "analysis.ipynb")
	if _, err := Write(rec, Notebook, path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", `import sys, nbformat
nb = nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT)
nbformat.validate(nb)
print(nb.nbformat, nb.nbformat_minor, len(nb.cells))`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("nbformat rejects the notebook: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "4 5 12" {
		t.Errorf("nbformat read: %s", out)
	}

	var nb struct {
		Cells []struct {
			ID             string         `json:"id"`
			CellType       string         `json:"cell_type"`
			Source         string         `json:"source"`
			ExecutionCount *int           `json:"execution_count"`
			Metadata       map[string]any `json:"metadata"`
			Outputs        []struct {
				OutputType string            `json:"output_type"`
				Name       string            `json:"name"`
				Text       string            `json:"text"`
				Data       map[string]string `json:"data"`
				EName      string            `json:"ename"`
				Traceback  []string          `json:"traceback"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range nb.Cells {
		kinds = append(kinds, c.CellType[:1])
	}
	if got := strings.Join(kinds, ""); got != "mcmcccmmcccm" {
		t.Errorf("cell kinds %s", got)
	}
	setup, q, first, second, failed, answer := nb.Cells[1], nb.Cells[2], nb.Cells[3], nb.Cells[4], nb.Cells[5], nb.Cells[6]
	if setup.ID != notebook.SetupID || !strings.Contains(setup.Source, "DATA_DIR = './'") || setup.ExecutionCount != nil {
		t.Errorf("setup cell %+v", setup)
	}
	if !strings.Contains(q.Source, `\<script>`) || rawTag(q.Source, "<script") {
		t.Errorf("question cell keeps raw HTML: %q", q.Source)
	}
	if *first.ExecutionCount != 1 || !strings.Contains(first.Source, "pd.read_csv((DATA_DIR + 'q1.csv'))") ||
		!strings.Contains(first.Source, "(OUTPUT_DIR + 'v1.csv')") {
		t.Errorf("first code cell %+v", first)
	}
	outs := map[string]bool{}
	for _, c := range []int{3, 4, 5} {
		for _, o := range nb.Cells[c].Outputs {
			outs[o.OutputType] = true
		}
	}
	for _, k := range []string{"stream", "execute_result", "display_data", "error"} {
		if !outs[k] {
			t.Errorf("no %s output", k)
		}
	}
	res := first.Outputs[len(first.Outputs)-1]
	if !strings.Contains(res.Data["text/html"], "<td class=\"num\">90000</td>") || !strings.Contains(res.Data["text/html"], "&lt;b&gt;bold&lt;/b&gt;") {
		t.Errorf("table html %q", res.Data["text/html"])
	}
	if strings.Contains(first.Outputs[0].Text, "\x1b") {
		t.Errorf("a terminal escape reached the notebook: %q", first.Outputs[0].Text)
	}
	png, err := base64.StdEncoding.DecodeString(second.Outputs[len(second.Outputs)-1].Data["image/png"])
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("figure output: %v", err)
	}
	if e := failed.Outputs[0]; e.EName != "KeyError" || len(e.Traceback) < 2 || failed.Metadata["tags"] == nil {
		t.Errorf("failed cell %+v", failed)
	}
	if !strings.Contains(answer.Source, `\<img src=x`) || rawTag(answer.Source, "<img") {
		t.Errorf("answer cell keeps raw HTML: %q", answer.Source)
	}
}

// The Markdown report: tables as Markdown tables, figures as relative
// links, copied beside a report written outside the session folder.
func TestMarkdownReport(t *testing.T) {
	dir := writeRecord(t, 2, 3)
	rec := loadRecord(t, dir)
	inside := filepath.Join(dir, DefaultName(Markdown))
	files, err := Write(rec, Markdown, inside)
	if err != nil || len(files) != 1 {
		t.Fatalf("write: %v %v", files, err)
	}
	md, _ := os.ReadFile(inside)
	for _, want := range []string{
		"| region | revenue | note |\n|---|---:|---|\n| North | 90000 | \\<b\\>bold\\</b\\> |\n| South | 80000 | a\\|b |",
		"![cell 2, figure 1](figures/cell2-1.png)",
		"```python\ndf = pd.read_csv('/data/q1.csv')",
		"KeyError: 'Nowhere'",
		"## 1. Variance by region \\<script\\>alert('q')\\</script\\>",
		"Files saved: v1.csv (40 B)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if rawTag(string(md), "<img") || rawTag(string(md), "<script") || strings.Contains(string(md), "\x1b") || strings.Contains(string(md), "&lt;") {
		t.Errorf("raw HTML or escapes in the report:\n%s", md)
	}

	outside := filepath.Join(t.TempDir(), "q2-report.md")
	files, err = Write(rec, Markdown, outside)
	if err != nil || len(files) != 3 {
		t.Fatalf("write outside: %v %v", files, err)
	}
	md, _ = os.ReadFile(outside)
	if !strings.Contains(string(md), "![cell 2, figure 1](q2-report_files/cell2-1.png)") {
		t.Errorf("outside report links:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(outside), "q2-report_files", "cell5-1.png")); err != nil {
		t.Error(err)
	}
	os.Remove(filepath.Join(dir, "figures", "cell5-1.png"))
	var buf bytes.Buffer
	if err := Render(&buf, rec, Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "figure figures/cell5-1.png is missing") || !strings.Contains(buf.String(), filepath.Join(dir, "figures", "cell2-1.png")) {
		t.Errorf("stdout report:\n%s", buf.String())
	}
}

// The HTML page escapes everything from the model and the sandbox, embeds
// its figures and starts with a policy that forbids any load.
func TestHTMLReportEscapes(t *testing.T) {
	rec := loadRecord(t, writeRecord(t, 2, 3))
	var buf bytes.Buffer
	if err := Render(&buf, rec, HTML); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	head := page[:strings.Index(page, "<meta charset")]
	if !strings.Contains(head, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:;`) {
		t.Errorf("the policy is not the first thing in <head>:\n%s", head)
	}
	for _, bad := range []string{"<script", "onerror=", `src="http`, `href="javascript`, "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;",
		"<strong>12.5%</strong>",
		"<td>10,000</td>",
		`<td class="num">90000</td>`,
		"[image: tracker — http://127.0.0.1:9/pixel.png, not loaded]",
		`<img src="data:image/png;base64,`,
		"KeyError: &#39;Nowhere&#39;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestFormats(t *testing.T) {
	for in, want := range map[string]Format{"ipynb": Notebook, "MD": Markdown, "markdown": Markdown, ".html": HTML, "xlsx": Workbook, "excel": Workbook, "PDF": PDF} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, f, err)
		}
	}
	if _, err := ParseFormat("docx"); err == nil || !strings.Contains(err.Error(), "use ipynb, md, html, xlsx or pdf") {
		t.Errorf("docx: %v", err)
	}
	if _, err := Write(loadRecord(t, writeRecord(t, 1, 1)), Workbook, filepath.Join(t.TempDir(), "r.xlsx")); err == nil || !strings.Contains(err.Error(), "built in a sandbox") {
		t.Errorf("a workbook written without a sandbox: %v", err)
	}
	if f, ok := FormatOf("x/report.HTML"); !ok || f != HTML {
		t.Errorf("FormatOf = %q %v", f, ok)
	}
	if _, ok := FormatOf("report"); ok {
		t.Error("no extension taken for a format")
	}
	rec := loadRecord(t, writeRecord(t, 1, 1))
	if _, err := Write(rec, HTML, t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("export onto a folder: %v", err)
	}
}
