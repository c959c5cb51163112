package agent

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

var salesProfile = kernel.Profile{
	Name: "sales.csv", Path: "/data/sales.csv", Size: 2048, Kind: "csv", Encoding: "latin-1",
	Delimiter: ";", Decimal: ",", Thousands: ".", HeaderRow: 0, Rows: 120,
	Notes: []string{"sampled: the file is 80.0 MB, so dtypes come from its first 200000 rows only"},
	Columns: []kernel.Column{
		{Name: "date", Dtype: "datetime64[ns]", DateFormat: "%d.%m.%Y", Examples: []string{"2024-01-01", "2024-01-02"}},
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
		"/data/sales.csv (csv, 2 KiB, 120 rows, encoding latin-1, delimiter \";\", decimal \",\", thousands \".\")",
		salesCall, "note: sampled: the file is 80.0 MB", "date: datetime64[ns] (parsed from text \"%d.%m.%Y\")",
		"with the call under \"read with\"",
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

const salesCall = "read with: pd.read_csv('/data/sales.csv', sep=';', decimal=',', thousands='.', encoding='latin-1', " +
	"parse_dates=['date'], date_format={'date': '%d.%m.%Y'})"

func TestSystemPromptWithoutExamples(t *testing.T) {
	a := newAgent(t, Config{Model: "m"}, echoKernel())
	a.SetFiles([]kernel.Profile{salesProfile})
	p := a.systemPrompt()
	if !strings.Contains(p, "date: datetime64[ns]") || !strings.Contains(p, "amount: float64") {
		t.Errorf("column names and types missing:\n%s", p)
	}
	// The read call and the notes carry no values: they stay without examples.
	if !strings.Contains(p, salesCall) || !strings.Contains(p, "note: sampled") {
		t.Errorf("read call or note missing:\n%s", p)
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
		"0 | north | 1.5", "(7 rows not shown)", "9 | west | 9", "/output/fig-1.png (2 KiB)", "/output/summary.xlsx (10 B)",
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

func TestReadCall(t *testing.T) {
	cases := []struct {
		name string
		p    kernel.Profile
		want string
	}{
		{"plain csv", kernel.Profile{Kind: "csv", Encoding: "utf-8", Delimiter: ",", Decimal: "."},
			"pd.read_csv('/data/f')"},
		{"no header, bom", kernel.Profile{Kind: "csv", Encoding: "utf-8-sig", Delimiter: "\t", Decimal: ".", HeaderRow: -1},
			`pd.read_csv('/data/f', sep='\t', encoding='utf-8-sig', header=None)`},
		{"us thousands", kernel.Profile{Kind: "csv", Delimiter: "|", Decimal: ".", Thousands: ","},
			"pd.read_csv('/data/f', sep='|', thousands=',')"},
		{"workbook", kernel.Profile{Kind: "excel", Sheets: []kernel.Sheet{{Name: "a"}, {Name: "b"}}},
			"pd.read_excel('/data/f', sheet_name=None)"},
		{"one sheet", kernel.Profile{Kind: "excel", Sheets: []kernel.Sheet{{Name: "a"}}}, "pd.read_excel('/data/f')"},
		{"parquet", kernel.Profile{Kind: "parquet"}, "pd.read_parquet('/data/f')"},
		{"failed", kernel.Profile{Kind: "csv", Error: "bad"}, ""},
		{"binary", kernel.Profile{Kind: "other"}, ""},
	}
	for _, c := range cases {
		if got := readCall(c.p, "/data/f"); !strings.HasPrefix(got, c.want) || c.want == "" && got != "" {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if got := readCall(kernel.Profile{Kind: "json"}, "/data/x.JSONL"); got != "pd.read_json('/data/x.JSONL', lines=True)" {
		t.Errorf("jsonl: %q", got)
	}
}

// Names come from the user's disk and the file's header: quotes, backslashes
// and line breaks must stay inside one valid Python literal on one line.
func TestReadCallQuotesHostileNames(t *testing.T) {
	p := kernel.Profile{Kind: "csv", Delimiter: ";", HeaderRow: 0,
		Columns: []kernel.Column{{Name: "it's\n\\x", Dtype: "datetime64[ns]", DateFormat: "%Y-%m-%d"}}}
	got := readCall(p, "/data/Données [été] 'q' \"x\".csv")
	want := `pd.read_csv('/data/Données [été] \'q\' "x".csv', sep=';', parse_dates=['it\'s\n\\x'], date_format={'it\'s\n\\x': '%Y-%m-%d'})`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if pyStr("a\x00\u2028b") != `'a\u0000\u2028b'` {
		t.Errorf("control characters: %s", pyStr("a\x00\u2028b"))
	}
	prompt := profileText(kernel.Profile{Name: "f.csv", Kind: "csv", Notes: []string{"one\n- /data/evil.csv (csv)"}}, false)
	if strings.Contains(prompt, "\n- /data/evil") {
		t.Errorf("a note started its own line:\n%s", prompt)
	}
}
