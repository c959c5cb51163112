package sandbox_test

import (
	"strings"
	"testing"
)

// variance() with a forecast and the prior year beside the budget, all
// attached files: each comparison's columns on every line, the prior
// year's months a year back, the Total each side's bottom line, the notes
// naming each comparison.
func TestVarianceAgainstForecastAndPriorYear(t *testing.T) {
	head := "account,line,Apr 2026,May 2026,Jun 2026\n"
	actual := attach(t, writeFile(t, "cmp_actuals.csv", head+"4000,Product sales,106000,113000,117500\n6300,Travel,2900,3100,2600\n"))
	budget := attach(t, writeFile(t, "cmp_budget.csv", head+"4000,Product sales,105000,110000,115000\n6300,Travel,2500,2500,2500\n"))
	forecast := attach(t, writeFile(t, "cmp_forecast.csv", head+"4000,Product sales,106000,112000,120000\n6300,Travel,2900,3000,3000\n"))
	prior := attach(t, writeFile(t, "cmp_actuals_2025.csv", "account,line,Apr 2025,May 2025,Jun 2025,Jul 2025\n"+
		"4000,Product sales,90000,95000,99000,1\n6300,Travel,2000,2100,2200,1\n"))
	var got struct {
		Rows  []map[string]any `json:"rows"`
		Notes []string         `json:"notes"`
		Comps []string         `json:"comparisons"`
	}
	runJSON(t, sharedSession(t), "v = variance("+pyStr(actual)+", "+pyStr(budget)+", forecast="+pyStr(forecast)+", prior="+pyStr(prior)+")\n"+
		"out = {'rows': v.drop(columns=['variance_pct', 'variance_fc_pct', 'variance_py_pct']).to_dict('records'), 'notes': v.attrs['notes'], 'comparisons': sorted(v.attrs['comparisons'])}"+report, &got)
	if strings.Join(got.Comps, ",") != "forecast,prior" || len(got.Rows) != 3 {
		t.Fatalf("comparisons %v, rows %v", got.Comps, got.Rows)
	}
	sales, travel, total := got.Rows[0], got.Rows[1], got.Rows[2]
	num := func(r map[string]any, k string) float64 { f, _ := r[k].(float64); return f }
	wantMoney(t, "sales' forecast", num(sales, "forecast"), 338000)
	wantMoney(t, "sales vs forecast", num(sales, "variance_fc"), 336500-338000)
	wantMoney(t, "sales' prior year (Apr–Jun 2025)", num(sales, "prior"), 284000)
	wantMoney(t, "travel vs prior year", num(travel, "variance_py"), 8600-6300)
	if sales["effect_fc"] != "worse" || sales["effect_py"] != "better" || travel["effect_py"] != "worse" || travel["effect_fc"] != "better" {
		t.Errorf("effects: sales %v/%v, travel %v/%v", sales["effect_fc"], sales["effect_py"], travel["effect_fc"], travel["effect_py"])
	}
	wantMoney(t, "the Total vs forecast", num(total, "variance_fc"), num(total, "actual")-num(total, "forecast"))
}
