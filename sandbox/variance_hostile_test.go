package sandbox_test

import (
	"strings"
	"testing"
	"unicode"
)

// Hostile data gets a clean result or a clear error: formula-looking names,
// control characters, 5,000-character labels, 100,000 lines, empty, blank,
// binary and all-text files, wrong arguments.
func TestVarianceHostileInput(t *testing.T) {
	t.Run("FormulasControlsAndLongLabels", func(t *testing.T) {
		var got struct {
			Rows, Material, Longest, Bars, TickMax int
			Formula, Control                       bool
			First                                  string
			Total                                  []float64
		}
		res := runJSON(t, sharedSession(t), `
import numpy as np
n = 100000
names = ['=cmd|\' /C calc\'!A%d\x07\x1b[31m\u202e' % i for i in range(n)]
for i in range(0, n, 20000):
    names[i] = 'L' * 5000 + str(i)
names[7] = '$\\frac{1}{0}$ \\ ^_'
rng = np.random.default_rng(7)
bud = rng.normal(1000, 50, n).round(2)
act = (bud * rng.normal(1, 0.06, n)).round(2)
pd.DataFrame({'account': names, 'amount': act}).to_csv('/tmp/hostile_actuals.csv', index=False)
v = variance('/tmp/hostile_actuals.csv', pd.DataFrame({'account': names, 'amount': bud}), kind='cost')
fig = bridge(v)
labels = v['account'].tolist()
out = {'rows': len(v), 'material': int(v['material'].sum()), 'longest': max(map(len, labels)),
       'formula': any(l.startswith('=cmd|') for l in labels), 'first': labels[1],
       'control': any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 or c == '\u202e' for l in labels for c in l),
       'bars': len(fig.bridge_data), 'tickmax': max(len(x.get_text()) for x in fig.axes[0].get_yticklabels()),
       'total': [float(v.iloc[-1]['actual']), float(act.sum()), float(v.iloc[-1]['budget']), float(bud.sum())]}`+report, &got)
		mustOK(t, res)
		if got.Rows != 100001 || !got.Formula || got.Control || got.Longest < 5000 {
			t.Errorf("rows %d, formula text kept %v, control characters left %v, longest label %d", got.Rows, got.Formula, got.Control, got.Longest)
		}
		if !strings.HasPrefix(got.First, "=cmd|' /C calc'!A1") || strings.IndexFunc(got.First, unicode.IsControl) >= 0 {
			t.Errorf("a cleaned label: %q", got.First)
		}
		if !cents(got.Total[0], got.Total[1]) || !cents(got.Total[2], got.Total[3]) {
			t.Errorf("Total %.2f/%.2f, the sums are %.2f/%.2f", got.Total[0], got.Total[2], got.Total[1], got.Total[3])
		}
		if got.Bars != 15 || got.TickMax > 41 {
			t.Errorf("%d bars (want 12 lines, Other, budget, actual), tick labels up to %d characters", got.Bars, got.TickMax)
		}
	})

	t.Run("ClearErrors", func(t *testing.T) {
		cases := []struct{ code, typ, want string }{
			{"open('/tmp/empty.csv', 'w').close()\nvariance('/tmp/empty.csv')", "ValueError", "empty"},
			{"open('/tmp/blank.csv', 'w').write('\\n \\n\\n')\nvariance('/tmp/blank.csv')", "ValueError", "blank"},
			{"open('/tmp/words.csv', 'w').write('line,actual,budget\\nRent,high,low\\nSales,ok,fine\\n')\nvariance('/tmp/words.csv')", "ValueError", "no column of amounts"},
			{"open('/tmp/header.csv', 'w').write('Account,Actual,Budget\\n')\nvariance('/tmp/header.csv')", "ValueError", "no rows"},
			{"open('/tmp/bin.csv', 'wb').write(bytes(range(256)) * 8)\nvariance('/tmp/bin.csv')", "ValueError", "bin.csv is not a CSV file: its content is binary"},
			{"variance('/data/no_such_budget.csv')", "FileNotFoundError", "does not exist"},
			{"variance('/tmp')", "ValueError", "folder"},
			{"variance('/tmp/x\\x00.csv')", "ValueError", "NUL"},
			{"variance(42)", "TypeError", "DataFrame or a file path"},
			{"variance(pd.DataFrame())", "ValueError", "empty DataFrame"},
			{"variance(pd.DataFrame({'line': ['a'], 'x': [1.0]}))", "ValueError", "budget= was left out"},
			{"variance(pd.DataFrame({'line': ['a'], 'x': [1.0], 'y': [2.0]}), pd.DataFrame({'line': ['a'], 'x': [1.0], 'y': [2.0]}))", "ValueError", "value="},
			{"variance(pd.DataFrame({'line': ['a'], 'x': [1.0]}), pd.DataFrame({'line': ['a'], 'x': [1.0]}), by='nope')", "KeyError", "by="},
			{"variance(pd.DataFrame({'line': ['a'], 'x': [1.0]}), pd.DataFrame({'line': ['a'], 'x': [1.0]}), period='ytd')", "ValueError", "neither file has periods"},
			{"variance(pd.DataFrame({'line': ['a'], 'x': [1.0]}), pd.DataFrame({'line': ['a'], 'x': [1.0]}), kind=3)", "TypeError", "kind="},
		}
		for _, c := range cases {
			typ, msg := varianceError(t, c.code)
			if typ != c.typ || !strings.Contains(msg, c.want) {
				t.Errorf("%s\n  got %s %q, want %s containing %q", c.code, typ, msg, c.typ, c.want)
			}
		}
	})

	t.Run("InfinitiesAndGaps", func(t *testing.T) {
		v := runVariance(t, `v = variance(pd.DataFrame({'line': ['Sales', 'Rent', 'Misc'], 'x': [float('inf'), 10.0, None]}),
                 pd.DataFrame({'line': ['Sales', 'Rent', 'Misc'], 'x': [100.0, float('nan'), 5.0]}))`)
		if r := v.row(t, "Sales"); r.Actual != 0 || r.Budget != 100 {
			t.Errorf("an infinite amount counts as none: %+v", r)
		}
		if r := v.row(t, "Rent"); r.Actual != 10 || r.Budget != 0 || r.Pct != nil {
			t.Errorf("a missing budget counts as 0: %+v", r)
		}
	})
}
