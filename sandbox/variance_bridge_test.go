package sandbox_test

import (
	"bytes"
	"image/png"
	"math"
	"sort"
	"strings"
	"testing"
)

// bridge() in the real kernel: the bars go from the budget's bottom line to
// the actual's, each material line's effect largest first, the rest as
// Other, and they add up to the gap to the cent; worse differs from better
// in colour and pattern; the figure is a cell's figure like any other.
func TestVarianceBridgeReconciles(t *testing.T) {
	cases := map[string]string{
		"quickbooks":   "v = variance(" + pyStr(attach(t, "quickbooks_budget_vs_actuals.csv")) + ")",
		"monthly ytd":  "v = variance(" + pyStr(attach(t, "quickbooks_monthly.csv")) + ", period='ytd')",
		"xero":         "v = variance(" + pyStr(attach(t, "xero_budget_variance.csv")) + ")",
		"netsuite":     "v = variance(" + pyStr(attach(t, "netsuite_budget_vs_actual.csv")) + ")",
		"german":       "v = variance(" + pyStr(attach(t, "sap_plan_ist_de.csv")) + ")",
		"few bars":     "v = variance(" + pyStr(attach(t, "quickbooks_budget_vs_actuals.csv")) + ")\nmax_bars = 2",
		"costs only":   "v = variance(pd.DataFrame({'d': ['IT', 'HR', 'Ops'], 'x': [120.10, 90.0, 300.0]}), pd.DataFrame({'d': ['IT', 'HR', 'Ops'], 'x': [100.0, 100.0, 301.0]}), kind='cost')",
		"a loss":       "v = variance(pd.DataFrame({'l': ['Sales', 'Wages'], 'x': [800.0, 1000.0]}), pd.DataFrame({'l': ['Sales', 'Wages'], 'x': [1000.0, 900.0]}))",
		"no material":  "v = variance(pd.DataFrame({'l': ['Sales', 'Rent'], 'x': [1001.0, 500.0]}), pd.DataFrame({'l': ['Sales', 'Rent'], 'x': [1000.0, 500.0]}))",
		"unclassified": "v = variance(pd.DataFrame({'l': ['Alpha', 'Beta'], 'x': [10.0, 5.0]}), pd.DataFrame({'l': ['Alpha', 'Beta'], 'x': [5.0, 6.0]}))",
		"fine cents":   "v = variance(pd.DataFrame({'l': ['a', 'b', 'c'], 'x': [0.1, 0.2, 0.7]}), pd.DataFrame({'l': ['a', 'b', 'c'], 'x': [0.3, 0.3, 0.3]}), kind='cost', material_pct=0)",
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			var got struct {
				Bars []struct {
					Label  string  `json:"label"`
					What   string  `json:"what"`
					Value  float64 `json:"value"`
					Start  float64 `json:"start"`
					End    float64 `json:"end"`
					Effect string  `json:"effect"`
				} `json:"bars"`
				Hatches      []string  `json:"hatches"`
				Colours      []string  `json:"colours"`
				Ticks        []string  `json:"ticks"`
				Actual       float64   `json:"actual"`
				Budget       float64   `json:"budget"`
				Material     []float64 `json:"material"`
				MaterialRows int       `json:"material_rows"`
			}
			res := runJSON(t, sharedSession(t), "max_bars = 12\n"+setup+`
fig = bridge(v, max_bars=max_bars)
d = fig.bridge_data
ax = fig.axes[0]
tot = v.iloc[-1]
lines = v.iloc[:-1]
sign = lines['kind'].map({'revenue': 1.0, 'cost': -1.0}).fillna(0.0) if v.attrs['bottom_line'] == 'profit' else 1.0
imp = (lines['variance'] * sign)[lines['material'] & (lines['variance'] != 0)]
out = {'bars': d.to_dict('records'), 'hatches': [p.get_hatch() or '' for p in ax.patches],
       'colours': [matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches],
       'ticks': [x.get_text() for x in ax.get_yticklabels()], 'actual': float(tot['actual']), 'budget': float(tot['budget']),
       'material': sorted((abs(float(x)) for x in imp), reverse=True), 'material_rows': int(lines['material'].sum())}`+report, &got)
			mustOK(t, res)
			if len(res.Figures) != 1 {
				t.Errorf("%d figures captured, want the bridge", len(res.Figures))
			} else if _, err := png.Decode(bytes.NewReader(res.Figures[0].PNG)); err != nil {
				t.Errorf("the figure is no PNG: %v", err)
			}
			bars := got.Bars
			if len(bars) < 2 || bars[0].What != "start" || bars[len(bars)-1].What != "end" {
				t.Fatalf("bars %+v", bars)
			}
			wantMoney(t, "start", bars[0].Value, got.Budget)
			wantMoney(t, "end", bars[len(bars)-1].Value, got.Actual)
			sum := 0.0
			level := got.Budget
			var sizes []float64
			for _, b := range bars[1 : len(bars)-1] {
				sum += b.Value
				if !cents(b.Start, level) || !cents(b.End, level+b.Value) {
					t.Errorf("bar %q runs %.2f–%.2f, want from %.2f by %.2f", b.Label, b.Start, b.End, level, b.Value)
				}
				level = b.End
				if b.What == "line" {
					sizes = append(sizes, math.Abs(b.Value))
				}
			}
			// The test the issue asks for: the bars add up to the gap, to the cent.
			if math.Abs(sum-(got.Actual-got.Budget)) >= 0.005 {
				t.Errorf("bars add up to %.4f, the gap is %.4f", sum, got.Actual-got.Budget)
			}
			if !sort.IsSorted(sort.Reverse(sort.Float64Slice(sizes))) {
				t.Errorf("line bars not largest first: %v", sizes)
			}
			max := 12
			if name == "few bars" {
				max = 2
			}
			want := got.Material
			if len(want) > max {
				want = want[:max]
			}
			if len(sizes) != len(want) {
				t.Errorf("%d line bars, want one per material line (%d, at most %d)", len(sizes), len(want), max)
			}
			for i := range want {
				if i < len(sizes) && !cents(sizes[i], want[i]) {
					t.Errorf("bar %d is %.2f, the %d. largest material effect is %.2f", i, sizes[i], i+1, want[i])
				}
			}
			if len(got.Hatches) != len(bars) || len(got.Ticks) != len(bars) {
				t.Fatalf("%d patches and %d labels for %d bars", len(got.Hatches), len(got.Ticks), len(bars))
			}
			for i, b := range bars {
				worse := b.Effect == "worse"
				if worse != (got.Hatches[i] != "") && b.Effect != "neutral" {
					t.Errorf("bar %q (%s) hatch %q: worse, and only worse, is hatched", b.Label, b.Effect, got.Hatches[i])
				}
				if b.Effect == "better" && got.Colours[i] != "#0072b2" || worse && got.Colours[i] != "#d55e00" {
					t.Errorf("bar %q (%s) is %s", b.Label, b.Effect, got.Colours[i])
				}
			}
			if name == "few bars" && (bars[len(bars)-2].What != "other" || !strings.Contains(bars[len(bars)-2].Label, "material")) {
				t.Errorf("the material lines past max_bars are not in Other: %+v", bars[len(bars)-2])
			}
			if name == "no material" && len(bars) != 3 {
				t.Errorf("no material line: bars %+v, want budget, Other, actual", bars)
			}
		})
	}

	typ, msg := varianceError(t, "bridge(pd.DataFrame({'a': [1]}))")
	if typ != "TypeError" || !strings.Contains(msg, "variance()") {
		t.Errorf("bridge of a plain frame: %s %q", typ, msg)
	}
	typ, msg = varianceError(t, "v = variance(pd.DataFrame({'l': ['Sales'], 'x': [1.0]}), pd.DataFrame({'l': ['Sales'], 'x': [2.0]}))\nbridge(v[v.l != 'Total'])")
	if typ != "ValueError" || !strings.Contains(msg, "Total row") {
		t.Errorf("bridge without the Total row: %s %q", typ, msg)
	}
}
