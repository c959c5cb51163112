package sandbox_test

import (
	"strings"
	"testing"
)

// A value is shown as Jupyter shows it, not fitted to a terminal of 80
// columns: pandas' display.max_columns is Jupyter's 20 (reset_option gives
// 20 too), a 9-column frame prints every column, a wider one sends the
// first and last ten with the gap's place, and a MultiIndex its levels.
func TestValuesAsJupyterShowsThem(t *testing.T) {
	s := sharedSession(t)
	res := cell(t, s, "import pandas as pd\npd.reset_option('display.max_columns')\n"+
		"nine = pd.DataFrame({'column_%d' % i: [i * 1000.5] for i in range(9)})\nprint(nine)\npd.get_option('display.max_columns')")
	cellOK(t, res)
	if res.Value == nil || res.Value.Repr != "20" || strings.Contains(res.Stdout, "...") || !strings.Contains(res.Stdout, "column_4") {
		t.Errorf("display.max_columns %+v; print of 9 columns:\n%s", res.Value, res.Stdout)
	}
	res = cell(t, s, "pd.DataFrame({'c%02d' % i: [i] for i in range(30)})")
	cellOK(t, res)
	tab := res.Value.Table
	if tab == nil || len(tab.Columns) != 20 || tab.ColumnGap != 10 || tab.Columns[9] != "c09" || tab.Columns[10] != "c20" || tab.Cols != 30 {
		t.Errorf("30 columns: %+v", tab)
	}
	res = cell(t, s, "idx = pd.MultiIndex.from_tuples([(1, pd.Timestamp('2012-01-01')), (2, pd.Timestamp('2012-01-02'))], names=['id', 'day'])\n"+
		"cols = pd.MultiIndex.from_tuples([('temp', 'max'), ('temp', 'min')])\npd.DataFrame([[3.5, 1.0], [4.0, 2.0]], index=idx, columns=cols)")
	cellOK(t, res)
	tab = res.Value.Table
	if tab == nil || strings.Join(tab.IndexNames, ",") != "id,day" || len(tab.IndexLevels) != 2 || strings.Join(tab.IndexLevels[1], ",") != "2,2012-01-02" ||
		strings.Join(tab.Columns, ",") != "temp max,temp min" || len(tab.ColumnLevels) != 2 || tab.Index[0] != "1, 2012-01-01" {
		t.Errorf("MultiIndex rows and columns: %+v", tab)
	}
}
