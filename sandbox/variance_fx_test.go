package sandbox_test

import (
	"strings"
	"testing"
)

// variance() in constant currency on attached files: amounts in EUR and
// USD converted with a rates file, the constant-currency variance and the
// FX effect adding up to the reported variance on every line; the same
// files without rates refused, naming the currencies.
func TestVarianceInConstantCurrency(t *testing.T) {
	actual := attach(t, writeFile(t, "fx_actuals.csv", "line,currency,amount\nSales,EUR,\"1,000.00\"\nSales,USD,500\nTravel,EUR,100\n"))
	budget := attach(t, writeFile(t, "fx_budget.csv", "line,currency,amount\nSales,EUR,900\nSales,USD,500\nTravel,EUR,80\n"))
	rates := attach(t, writeFile(t, "fx_rates.csv", "Currency,Actual rate,Budget rate\nEUR,1.10,1.05\nUSD,1,1\n"))
	var got struct {
		Rows []struct {
			Line       string  `json:"line"`
			Variance   float64 `json:"variance"`
			VarianceCC float64 `json:"variance_cc"`
			FX         float64 `json:"fx_effect"`
		} `json:"rows"`
		Refused string `json:"refused"`
	}
	runJSON(t, sharedSession(t), "kinds = {'Sales': 'revenue', 'Travel': 'cost'}\n"+
		"v = variance("+pyStr(actual)+", "+pyStr(budget)+", value='amount', kind=kinds, rates="+pyStr(rates)+")\n"+
		"try:\n    variance("+pyStr(actual)+", "+pyStr(budget)+", value='amount', kind=kinds)\n    refused = ''\nexcept ValueError as e:\n    refused = str(e)\n"+
		"out = {'rows': v[['line', 'variance', 'variance_cc', 'fx_effect']].to_dict('records'), 'refused': refused}"+report, &got)
	if len(got.Rows) != 3 {
		t.Fatalf("rows %+v", got.Rows)
	}
	for _, r := range got.Rows {
		wantMoney(t, r.Line+": variance_cc + fx_effect", r.VarianceCC+r.FX, r.Variance)
	}
	wantMoney(t, "Sales in constant currency", got.Rows[0].VarianceCC, 100*1.05)
	wantMoney(t, "Sales' FX effect", got.Rows[0].FX, 1000*(1.10-1.05))
	if !strings.Contains(got.Refused, "EUR, USD") {
		t.Errorf("without rates: %q, want the currencies named", got.Refused)
	}
}
