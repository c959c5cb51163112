package sandbox_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The kernel keeps for the report the tables of the cell's own pvm() and
// explain() calls: their columns, numbers as numbers, text as text, the
// Total row, their notes and pvm's method; a cell that calls neither keeps
// none, and a frame derived from one is not it.
func TestReportCaptureAnalyses(t *testing.T) {
	s := sandboxtest.Session(t, sandboxtest.Engine(t), sandbox.Options{})
	ctx := context.Background()
	res, err := s.Exec(ctx, `import pandas as pd
a = pd.DataFrame({'product': ['A', 'B', 'N'], 'units': [120, 80, 5], 'revenue': [1320.0, 1520.0, 250.0]})
b = pd.DataFrame({'product': ['A', 'B'], 'units': [100, 100], 'revenue': [1000.0, 2000.0]})
p = pvm(a, b, by='product')
pa = pd.DataFrame({'Account': ['Sales', 'Travel'], 'Amount': [100.0, 18.0]})
pb = pd.DataFrame({'Account': ['Sales', 'Travel'], 'Amount': [100.0, 12.0]})
v = variance(pa, pb, kind={'Sales': 'revenue', 'Travel': 'cost'})
gl = pd.DataFrame({'Account': ['Travel'] * 3, 'Vendor': ['Delta', 'Hilton', 'Delta'], 'Amount': [9.0, 6.0, 3.0]})
e = explain(v, gl, by='Vendor')
print(float(p['price'].iloc[-1]))`, nil)
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res.Error)
	}
	if res.Report == nil || len(res.Report.Analyses) != 2 {
		t.Fatalf("report %+v, want the pvm() and explain() tables", res.Report)
	}
	kinds := map[string]int{}
	for i, a := range res.Report.Analyses {
		kinds[a.Kind] = i
		if len(a.Numeric) != len(a.Columns) || len(a.Rows) != a.TotalRows || len(a.Notes) == 0 {
			t.Errorf("%s: %+v", a.Kind, a)
		}
	}
	p := res.Report.Analyses[kinds["pvm"]]
	col := func(name string) int {
		for j, c := range p.Columns {
			if c == name {
				return j
			}
		}
		t.Fatalf("pvm has no column %s: %v", name, p.Columns)
		return -1
	}
	last := p.Rows[len(p.Rows)-1]
	if last[0] != "Total" || !p.Numeric[col("variance")] || p.Numeric[col("status")] {
		t.Fatalf("pvm rows %v", p.Rows)
	}
	if got, _ := last[col("variance")].(float64); math.Abs(got-(3090-3000)) > 1e-9 {
		t.Errorf("the Total's variance %v, want 90", last[col("variance")])
	}
	if printed := strings.TrimSpace(res.Stdout); printed == "" || !strings.Contains(p.Method, "volume = ") {
		t.Errorf("method %q", p.Method)
	}
	e := res.Report.Analyses[kinds["explain"]]
	if len(e.Rows) != 2 || e.Rows[0][2] != "Delta" {
		t.Errorf("explain rows %v, want Delta first, then Hilton", e.Rows)
	}
	res, err = s.Exec(ctx, "q = p[p.status == 'new']\nq", nil)
	if err != nil || res.Report != nil {
		t.Errorf("a frame derived from pvm()'s: report %+v %v", res.Report, err)
	}
}

// A variance() table with a forecast beside the budget keeps, per line,
// the forecast's amount, variance, percent, effect and materiality.
func TestReportCaptureComparisons(t *testing.T) {
	s := sandboxtest.Session(t, sandboxtest.Engine(t), sandbox.Options{})
	res, err := s.Exec(context.Background(), `import pandas as pd
a = pd.DataFrame({'line': ['Sales', 'Travel'], 'amount': [120.0, 9.0]})
b = pd.DataFrame({'line': ['Sales', 'Travel'], 'amount': [100.0, 10.0]})
f = pd.DataFrame({'line': ['Sales', 'Travel'], 'amount': [125.0, 8.0]})
v = variance(a, b, kind={'Sales': 'revenue', 'Travel': 'cost'}, forecast=f)`, nil)
	if err != nil || res.Error != nil || res.Report == nil || res.Report.Variance == nil {
		t.Fatalf("%v %+v %+v", err, res.Error, res.Report)
	}
	v := res.Report.Variance
	if strings.Join(v.Comparisons, ",") != "forecast" {
		t.Fatalf("comparisons %v", v.Comparisons)
	}
	sales, ok := v.Lines[0].Comparisons["forecast"]
	if !ok || sales.Amount != 125 || sales.Variance != -5 || sales.Effect != "worse" || sales.Pct == nil || *sales.Pct != -4 {
		t.Errorf("Sales vs forecast: %+v", sales)
	}
	if travel := v.Lines[1].Comparisons["forecast"]; travel.Effect != "worse" || travel.Variance != 1 {
		t.Errorf("Travel vs forecast: %+v", travel)
	}
}

// variance() with rates= keeps, for the report, each line's FX effect and
// constant-currency variance and the rates it converted with.
func TestReportCaptureFX(t *testing.T) {
	s := sandboxtest.Session(t, sandboxtest.Engine(t), sandbox.Options{})
	res, err := s.Exec(context.Background(), `import pandas as pd
a = pd.DataFrame({'line': ['Sales', 'Sales', 'Travel'], 'currency': ['EUR', 'USD', 'eur'], 'amount': [1000.0, 500.0, 100.0]})
b = pd.DataFrame({'line': ['Sales', 'Sales', 'Travel'], 'currency': ['EUR', 'USD', 'EUR'], 'amount': [900.0, 500.0, 80.0]})
v = variance(a, b, value='amount', kind={'Sales': 'revenue', 'Travel': 'cost'}, rates={'EUR': (1.10, 1.05), 'USD': (1, 1)})`, nil)
	if err != nil || res.Error != nil || res.Report == nil || res.Report.Variance == nil {
		t.Fatalf("%v %+v %+v", err, res.Error, res.Report)
	}
	v := res.Report.Variance
	if v.FX == nil || strings.Join(v.FX.Currencies, ",") != "EUR,USD" || v.FX.Rates["EUR"].Actual == nil || *v.FX.Rates["EUR"].Actual != 1.10 {
		t.Fatalf("fx %+v", v.FX)
	}
	sales := v.Lines[0]
	if sales.FX == nil || sales.FX.Effect == nil || sales.FX.VarianceCC == nil ||
		math.Abs(*sales.FX.Effect-1000*(1.10-1.05)) > 1e-9 || math.Abs(*sales.FX.VarianceCC+*sales.FX.Effect-sales.Variance) > 1e-9 {
		t.Errorf("Sales' FX split: %+v of %v", sales.FX, sales.Variance)
	}
}
