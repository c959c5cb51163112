package agent

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

var salesProfile = kernel.Profile{
	Name: "sales.csv", Path: "/data/sales.csv", Size: 2048, Kind: "csv", Encoding: "utf-8",
	Delimiter: ";", Decimal: ",", HeaderRow: 0, Rows: 120,
	Columns: []kernel.Column{
		{Name: "date", Dtype: "datetime64[ns]", Examples: []string{"2024-01-01", "2024-01-02"}},
		{Name: "amount", Dtype: "float64", Nulls: 3, Examples: []string{"12.5", "99.9"}},
	},
	Head: [][]string{{"2024-01-01", "12.5"}, {"2024-01-02", "99.9"}},
}

func TestSystemPrompt(t *testing.T) {
	a := newAgent(t, Config{Model: "m", SendExamples: true}, echoKernel())
	a.SetFiles([]kernel.Profile{salesProfile})
	p := a.systemPrompt()
	for _, want := range []string{
		"pandas, numpy, matplotlib, scipy, seaborn, statsmodels, scikit-learn, openpyxl",
		"no internet", "/output", "no need for plt.show()",
		"/data/sales.csv (csv, 2.0 KB, 120 rows, encoding utf-8, delimiter \";\", decimal \",\")",
		"amount: float64, 3 missing, e.g. 12.5; 99.9", "2024-01-02 | 99.9",
		"Run code with the `python` tool", "State the assumptions",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, p)
		}
	}
	a.mode = modeMarkdown
	if p := a.systemPrompt(); !strings.Contains(p, "```python") || strings.Contains(p, "`python` tool") {
		t.Errorf("markdown prompt:\n%s", p)
	}
}

func TestSystemPromptWithoutExamples(t *testing.T) {
	a := newAgent(t, Config{Model: "m"}, echoKernel())
	a.SetFiles([]kernel.Profile{salesProfile})
	p := a.systemPrompt()
	if !strings.Contains(p, "date: datetime64[ns]") || !strings.Contains(p, "amount: float64") {
		t.Errorf("column names and types missing:\n%s", p)
	}
	for _, leak := range []string{"12.5", "99.9", "2024-01-0"} {
		if strings.Contains(p, leak) {
			t.Errorf("an example value %q reached the prompt:\n%s", leak, p)
		}
	}
	a.SetFiles(nil)
	if p := a.systemPrompt(); !strings.Contains(p, "No files are attached") {
		t.Errorf("no-file prompt:\n%s", p)
	}
}

func TestCellViewIsBounded(t *testing.T) {
	long := strings.Repeat("x", 20000) + "THE END"
	v := cellView(kernel.Result{Stdout: "HEAD" + long})
	if n := len([]rune(v)); n > modelViewLimit {
		t.Errorf("view has %d characters", n)
	}
	if !strings.Contains(v, "HEAD") || !strings.HasSuffix(v, "THE END") || !strings.Contains(v, "characters omitted") {
		t.Errorf("head, tail or marker missing: %q…%q", v[:40], v[len(v)-40:])
	}
}

func TestCellViewShowsEverythingCompactly(t *testing.T) {
	v := cellView(kernel.Result{
		Stdout: "hello\n",
		Value: &kernel.Value{Repr: "ignored when a table is set", Table: &kernel.Table{
			Columns: []string{"region", "total"}, Dtypes: []string{"object", "float64"}, IndexName: "",
			Index: []string{"0", "1", "9"}, Head: [][]string{{"north", "1.5"}, {"south", "2.5"}}, Tail: [][]string{{"west", "9"}},
			Rows: 10, Cols: 2,
		}},
		Figures:   []kernel.File{{Name: "fig-1.png", Size: 2048}},
		Files:     []kernel.File{{Name: "summary.xlsx", Size: 10}},
		Error:     &kernel.Error{Kind: kernel.ErrException, Type: "ValueError", Message: "bad", Traceback: "Traceback …\nValueError: bad"},
		StateLost: true,
	})
	for _, want := range []string{"[stdout]\nhello", "table: 10 rows × 2 columns", "region (object) | total (float64)",
		"0 | north | 1.5", "(7 rows not shown)", "9 | west | 9", "/output/fig-1.png (2.0 KB)", "/output/summary.xlsx (10 bytes)",
		"ValueError: bad", "kernel was restarted"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if got := cellView(kernel.Result{}); got != "(the cell ran and printed nothing)" {
		t.Errorf("empty view = %q", got)
	}
	if got := cellView(kernel.Result{Error: &kernel.Error{Kind: kernel.ErrTimeout, Message: "60 s"}}); !strings.Contains(got, "time limit") {
		t.Errorf("timeout view = %q", got)
	}
}
