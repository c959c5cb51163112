package notebook

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// pandas' to_html() of a frame with a named index, and its Styler's table.
const (
	frameHTML  = `<table border="1" class="dataframe"><thead><tr style="text-align: right;"><th></th><th>revenue</th></tr><tr><th>region</th><th></th></tr></thead><tbody><tr><th>North</th><td>3300</td></tr><tr><th>South</th><td>1380</td></tr></tbody></table>`
	stylerHTML = `<style type="text/css"></style><table id="T_1"><thead><tr><th class="blank level0" >&nbsp;</th><th id="T_1_level0_col0" class="col_heading level0 col0" >revenue</th></tr><tr><th class="index_name level0" >region</th><th class="blank col0" >&nbsp;</th></tr></thead><tbody><tr><th id="T_1_level0_row0" class="row_heading level0 row0" >North</th><td id="T_1_row0_col0" class="data row0 col0" >3,300</td></tr><tr><th class="row_heading level0 row1" >South</th><td class="data row1 col0" >1,380</td></tr></tbody></table>`
)

func regionTable(north, south string) *kernel.Value {
	return &kernel.Value{Repr: "revenue ...", Table: &kernel.Table{Columns: []string{"revenue"}, IndexName: "region",
		Index: []string{"North", "South"}, Head: [][]string{{north}, {south}}, Rows: 2, Cols: 1}}
}

func TestCompareWithStoredOutputs(t *testing.T) {
	for _, html := range []string{frameHTML, stylerHTML} {
		tab := parseHTMLTable(html)
		if tab == nil || strings.Join(tab.columns, ",") != "revenue" || len(tab.rows) != 2 || tab.rows[0].label != "North" || tab.rows[0].cells[0] == "" {
			t.Fatalf("table %+v", tab)
		}
	}
	kerr := &kernel.Error{Type: "KeyError", Message: "'discount'"}
	for _, c := range []struct {
		name string
		was  StoredOutputs
		now  kernel.Result
		kind string
		diff string
	}{
		{"timing differs, nothing else", StoredOutputs{Ran: true, Stdout: "NOTES x\nCPU times: user 1 ms, sys: 0 ns, total: 1 ms\nWall time: 17.5 ms\n"},
			kernel.Result{Stdout: "NOTES x\nCPU times: user 0 ns, sys: 0 ns, total: 0 ns\nWall time: 726 µs\n"}, "same", ""},
		{"a printed number moved", StoredOutputs{Ran: true, Stdout: "TOTAL 7620\n"}, kernel.Result{Stdout: "TOTAL 7920\n"}, "changed", "- TOTAL 7620\n+ TOTAL 7920"},
		{"a line more", StoredOutputs{Ran: true, Stdout: "a\n"}, kernel.Result{Stdout: "a\nb\n"}, "changed", "+ b"},
		{"display() prints in quarry", StoredOutputs{Ran: true, Stdout: "a\n", Displays: 1}, kernel.Result{Stdout: "a\n  region revenue\n"}, "same", ""},
		{"a Styler's table, same values", StoredOutputs{Ran: true, Table: parseHTMLTable(stylerHTML)}, kernel.Result{Value: regionTable("3300", "1380")}, "same", ""},
		{"a table value moved", StoredOutputs{Ran: true, Table: parseHTMLTable(frameHTML)}, kernel.Result{Value: regionTable("3600", "1380")}, "changed", "row North, revenue: 3600, was 3300"},
		{"a text value moved", StoredOutputs{Ran: true, Value: "np.float64(1270.0)"}, kernel.Result{Value: &kernel.Value{Repr: "np.float64(1320.0)"}}, "changed", "- np.float64(1270.0)\n+ np.float64(1320.0)"},
		{"fails now", StoredOutputs{Ran: true, Stdout: "x\n"}, kernel.Result{Error: kerr}, "new", "fails now: KeyError: 'discount'"},
		{"fails as it did", StoredOutputs{Ran: true, EName: "KeyError", Error: "KeyError: 'discount'"}, kernel.Result{Error: kerr}, "same", ""},
		{"runs now", StoredOutputs{Ran: true, EName: "KeyError", Error: "KeyError: 'discount'"}, kernel.Result{}, "changed", "runs now; it failed with KeyError: 'discount'"},
		{"a figure more", StoredOutputs{Ran: true, Figures: 1}, kernel.Result{Figures: []kernel.File{{}, {}}}, "changed", "2 figures, was 1"},
	} {
		got := Compare(c.was, c.now)
		if got.Kind != c.kind || strings.Join(got.Diff, "\n") != c.diff {
			t.Errorf("%s: %s %q, want %s %q", c.name, got.Kind, got.Diff, c.kind, c.diff)
		}
	}
}

// pandas' HTML of a frame with a two-level index (the first level spans
// its rows) and one with two-level columns (the upper level spans its
// columns), as Jupyter stores them.
const (
	multiRowsHTML = `<table border="1" class="dataframe"><thead><tr style="text-align: right;"><th></th><th></th><th>temp</th><th>name</th></tr>
<tr><th>id</th><th>date_time</th><th></th><th></th></tr></thead><tbody>
<tr><th rowspan="2" valign="top">1</th><th>2012-01-01</th><td>1.50</td><td>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...</td></tr>
<tr><th>2012-01-02</th><td>2.25</td><td>b</td></tr>
<tr><th>2</th><th>2012-01-01</th><td>3.00</td><td>c</td></tr></tbody></table>`
	multiColsHTML = `<table border="1" class="dataframe"><thead><tr><th>L0</th><th colspan="2" halign="left">a</th><th>b</th></tr>
<tr><th>L1</th><th>x</th><th>y</th><th>x</th></tr><tr><th>row</th><th></th><th></th><th></th></tr></thead>
<tbody><tr><th>r1</th><td>1</td><td>2</td><td>3</td></tr><tr><th>r2</th><td>4</td><td>5</td><td>6</td></tr></tbody></table>`
)

func TestCompareTablesByTheirValues(t *testing.T) {
	long := strings.Repeat("a", 60)
	multiRows := func(temp string) *kernel.Value {
		return &kernel.Value{Table: &kernel.Table{Columns: []string{"temp", "name"}, Dtypes: []string{"float64", "object"}, Rows: 3, Cols: 2,
			IndexNames: []string{"id", "date_time"}, IndexLevels: [][]string{{"1", "2012-01-01 00:00:00"}, {"1", "2012-01-02"}, {"2", "2012-01-01"}},
			Index: []string{"1, 2012-01-01", "1, 2012-01-02", "2, 2012-01-01"},
			Head:  [][]string{{"1.5", long[:39] + "…"}, {temp, "b"}, {"3.0", "c"}}, Display: [][]string{{"1.50", long[:39] + "…"}, {temp, "b"}, {"3.00", "c"}}}}
	}
	multiCols := func(v string) *kernel.Value {
		return &kernel.Value{Table: &kernel.Table{Columns: []string{"a x", "a y", "b x"}, ColumnLevels: [][]string{{"a", "x"}, {"a", "y"}, {"b", "x"}},
			Dtypes: []string{"int64", "int64", "int64"}, IndexName: "row", Index: []string{"r1", "r2"}, Rows: 2, Cols: 3,
			Head: [][]string{{"1", "2", "3"}, {"4", v, "6"}}}}
	}
	third := &kernel.Value{Table: &kernel.Table{Columns: []string{"share"}, Dtypes: []string{"float64"}, Index: []string{"North"}, Rows: 1, Cols: 1,
		Head: [][]string{{"0.3333333333333333"}}, Display: [][]string{{"0.3333333333333333"}}}}
	thirdHTML := `<table><thead><tr><th></th><th>share</th></tr></thead><tbody><tr><th>North</th><td>0.333333</td></tr></tbody></table>`
	for _, c := range []struct {
		name string
		was  string
		now  *kernel.Value
		kind string
		diff string
	}{
		{"MultiIndex rows, strings cut at other widths, dates with and without time", multiRowsHTML, multiRows("2.25"), "same", ""},
		{"MultiIndex rows, one value edited", multiRowsHTML, multiRows("2.75"), "changed", "row 1, 2012-01-02, temp: 2.75, was 2.25"},
		{"MultiIndex columns", multiColsHTML, multiCols("5"), "same", ""},
		{"MultiIndex columns, one value edited", multiColsHTML, multiCols("7"), "changed", "row r2, a y: 7, was 5"},
		{"a float at display precision", thirdHTML, third, "same", ""},
	} {
		got := Compare(StoredOutputs{Ran: true, Table: parseHTMLTable(c.was)}, kernel.Result{Value: c.now})
		if got.Kind != c.kind || strings.Join(got.Diff, "\n") != c.diff {
			t.Errorf("%s: %s %q, want %s %q", c.name, got.Kind, got.Diff, c.kind, c.diff)
		}
	}
	for _, c := range []struct {
		was, now string
		same     bool
	}{
		{"0.333333", "0.3333333333333333", true}, {"1.2e+04", "12034.5", true}, {"1.2e+04", "12534.5", false},
		{"3,300", "3300", true}, {"2012-03-11 01:30:00", "2012-03-11 01:30", true}, {"2012-03-11", "2012-03-12", false},
		{"libtalloc.so.2.4.2 ...", "libtalloc.so.2…", true}, {"libtalloc.so.3...", "libtalloc.so.2…", false}, {"7620", "7920", false},
	} {
		if got := sameValue(c.was, c.now); got != c.same {
			t.Errorf("sameValue(%q, %q) = %v", c.was, c.now, got)
		}
	}
}
