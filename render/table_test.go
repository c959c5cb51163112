package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/quarry-cli/quarry/kernel"
)

func sampleTable() *kernel.Table {
	return &kernel.Table{
		Columns:   []string{"department", "quarter", "budget", "actual", "variance", "comment"},
		Dtypes:    []string{"object", "object", "int64", "int64", "float64", "object"},
		IndexName: "",
		Index:     []string{"0", "1", "2", "3", "98", "99"},
		Head: [][]string{
			{"Marketing", "Q1", "120000", "132400", "12400.0", "campaign overrun in March"},
			{"IT", "Q1", "80000", "76800", "-3200.0", "licence renewal delayed"},
			{"Sales", "Q1", "95000", "95000", "0.0", ""},
			{"東京 office", "Q1", "40000", "41000", "1000.0", "wide characters"},
		},
		Tail: [][]string{
			{"Finance", "Q2", "60000", "59000", "-1000.0", "a very long comment that will certainly need to be truncated somewhere"},
			{"HR", "Q2", "30000", "30500", "500.0", "ok"},
		},
		Rows: 100,
		Cols: 6,
	}
}

func TestTableGolden(t *testing.T) {
	for _, width := range []int{40, 60, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			out := Table(sampleTable(), TableOptions{Width: width})
			for i, line := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(line); w > width {
					t.Errorf("line %d is %d wide, more than %d: %q", i, w, width, line)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

func TestTableStructure(t *testing.T) {
	out := Table(sampleTable(), TableOptions{Width: 60})
	if !strings.Contains(out, "⋯") {
		t.Error("no gap row between head and tail")
	}
	if !strings.Contains(out, "100 rows × 6 columns") {
		t.Errorf("footer missing: %q", out)
	}
	if !strings.Contains(out, "+1 column not shown") {
		t.Errorf("dropped columns not counted at width 60: %q", out)
	}
	if !strings.Contains(Table(sampleTable(), TableOptions{Width: 100}), "will certain…") {
		t.Error("long cell not truncated to the window")
	}
	wide := Table(sampleTable(), TableOptions{Width: 200})
	if strings.Contains(wide, "not shown") || strings.Contains(wide, "…") {
		t.Errorf("columns dropped or cut at width 200, with room to spare: %q", wide)
	}
	if strings.IndexByte(out, 0x1b) >= 0 {
		t.Error("escape sequences without Color")
	}
	colored := Table(sampleTable(), TableOptions{Width: 60, Color: true})
	if strings.IndexByte(colored, 0x1b) < 0 {
		t.Error("no styling with Color")
	}
}

func TestTableMaxRowsAndNoTail(t *testing.T) {
	tb := sampleTable()
	tb.Tail = nil
	tb.Rows = 4
	out := Table(tb, TableOptions{Width: 100})
	if strings.Contains(out, "⋯") {
		t.Errorf("gap row without a tail: %q", out)
	}
	out = Table(tb, TableOptions{Width: 100, MaxRows: 2})
	if !strings.Contains(out, "⋯") || strings.Contains(out, "Sales") {
		t.Errorf("MaxRows 2 not applied: %q", out)
	}
	// One row over: the row itself, not a gap row in its place (the demo's
	// variance table lost its Total so).
	out = Table(tb, TableOptions{Width: 100, MaxRows: 3})
	if strings.Contains(out, "⋯") || !strings.Contains(out, "東京 office") {
		t.Errorf("MaxRows 3 of 4 rows hid the last behind a gap row: %q", out)
	}
}

func TestTableSanitizesCells(t *testing.T) {
	tb := &kernel.Table{
		Columns: []string{"name\x1b]0;pwned\x07", "x\x1b[2J"},
		Dtypes:  []string{"object", "int64"},
		Index:   []string{"0\x1b[31m"},
		Head:    [][]string{{"\x1b]52;c;AAAA\x07evil\nline", "1\u009b6n"}},
		Rows:    1, Cols: 2,
	}
	for _, out := range []string{Table(tb, TableOptions{Width: 80})} {
		assertClean(t, strings.ReplaceAll(out, "\n", ""), true)
		if !strings.Contains(out, "evil line") || !strings.Contains(out, "name") {
			t.Errorf("text lost: %q", out)
		}
	}
}

func TestTableNarrowAndEmpty(t *testing.T) {
	// Must not panic, whatever the width or shape.
	for _, w := range []int{1, 5, 12} {
		Table(sampleTable(), TableOptions{Width: w})
	}
	Table(&kernel.Table{}, TableOptions{})
	Table(&kernel.Table{Columns: []string{"a"}, Head: [][]string{{}}, Rows: 1, Cols: 1}, TableOptions{})
	if Table(nil, TableOptions{}) != "" {
		t.Error("nil table rendered")
	}
}

func TestGroupThousands(t *testing.T) {
	for in, want := range map[string]string{"46624.99": "46,624.99", "-2000": "-2,000", "123": "123", "1000": "1,000",
		"1234567.125": "1,234,567.125", "NaN": "NaN", "1.000000e+20": "1.000000e+20", "12345abc": "12345abc",
		"123456789012345678901234567890": "123,456,789,012,345,678,901,234,567,890", "+1200.5": "+1,200.5", "": ""} {
		if got := GroupThousands(in); got != want {
			t.Errorf("GroupThousands(%q) = %q, want %q", in, got, want)
		}
	}
}

// varianceTable is the chat's variance pivot as the kernel sends it: exact
// floats for the model, pandas' display for the screen.
func varianceTable() *kernel.Table {
	return &kernel.Table{
		Columns: []string{"Q1"}, Dtypes: []string{"float64"}, IndexName: "department",
		Index:   []string{"Engineering and Research", "Marketing", "Sales"},
		Head:    [][]string{{"-2000.0"}, {"46624.99000000002"}, {"12500.5"}},
		Display: [][]string{{"-2000.00"}, {"46624.99"}, {"12500.50"}}, IndexDisplay: []string{"Engineering and Research", "Marketing", "Sales"},
		Rows: 3, Cols: 1,
	}
}

func TestTableShowsPandasDisplay(t *testing.T) {
	out := Table(varianceTable(), TableOptions{Width: 60, Thousands: true})
	for _, want := range []string{"46,624.99", "-2,000.00", "12,500.50", "3 rows × 1 column\n", "Engineering and Research"} {
		if !strings.Contains(out+"\n", want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "46624.99000000002") {
		t.Errorf("raw float repr shown:\n%s", out)
	}
	if plain := Table(varianceTable(), TableOptions{Width: 60}); !strings.Contains(plain, "46624.99") || strings.Contains(plain, "46,624") {
		t.Errorf("without thousands, pandas' own digits:\n%s", plain)
	}
	// Numbers line up on the right.
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".") && strings.Contains(l, "│") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 || ansi.StringWidth(rows[0]) != ansi.StringWidth(rows[1]) || !strings.HasSuffix(strings.TrimRight(rows[0], " │"), "-2,000.00") {
		t.Errorf("numbers not right-aligned:\n%s", strings.Join(rows, "\n"))
	}
}

// A narrow window cuts the labels before it drops a column of numbers.
func TestTableNarrowCutsLabelsFirst(t *testing.T) {
	out := Table(varianceTable(), TableOptions{Width: 26, Thousands: true})
	if strings.Contains(out, "not shown") || !strings.Contains(out, "46,624.99") {
		t.Errorf("at 26 columns the values must stay:\n%s", out)
	}
	if !strings.Contains(out, "…") {
		t.Errorf("the long label is not cut:\n%s", out)
	}
	for i, line := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(line); w > 26 {
			t.Errorf("line %d is %d wide: %q", i, w, line)
		}
	}
}

// A table as Jupyter shows it: a MultiIndex as one column a level, a "⋯"
// column where display.max_columns leaves columns out.
func TestGridAsJupyterShowsIt(t *testing.T) {
	g := NewGrid(&kernel.Table{
		Columns: []string{"a", "b", "y", "z"}, Dtypes: []string{"int64", "int64", "int64", "int64"}, Rows: 2, Cols: 26, ColumnGap: 2,
		IndexNames: []string{"id", "day"}, IndexLevels: [][]string{{"1", "2012-01-01"}, {"1", "2012-01-02"}}, Index: []string{"1, 2012-01-01", "1, 2012-01-02"},
		Head: [][]string{{"1", "2", "25", "26"}, {"3", "4", "27", "28"}},
	}, 0, false)
	if got := strings.Join(g.Header, "|"); got != "id|day|a|b|⋯|y|z" || g.IndexCols != 2 || g.Hidden != 22 {
		t.Fatalf("header %s, %d index columns, %d hidden", got, g.IndexCols, g.Hidden)
	}
	if got := strings.Join(g.Rows[1], "|"); got != "1|2012-01-02|3|4|⋯|27|28" {
		t.Errorf("row %s", got)
	}
	if g.Numeric[4] || !g.Numeric[5] || g.Numeric[0] {
		t.Errorf("numeric %v: the gap and the index are not numbers", g.Numeric)
	}
}
