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
