package sandbox_test

import (
	"strings"
	"testing"
)

// pvm() in the real kernel on attached files as a sales system exports
// them (one line per sale, amounts with thousands separators): the columns
// are found by their names and said in the notes, lines are summed by
// product, a product sold only now is its own new effect, and the effects
// add up to the variance on every row and to the files' own totals.
func TestPVMOnAttachedFiles(t *testing.T) {
	actual := attach(t, writeFile(t, "sales_lines_q2.csv", "Date,Product,Region,Qty,Net Sales\n"+
		"2026-04-02,Widget,North,120,\"1,320.00\"\n2026-05-09,Widget,South,30,\"345.00\"\n"+
		"2026-04-11,Gadget,North,80,\"1,520.00\"\n2026-06-30,Gizmo,East,15,\"600.00\"\n"))
	budget := attach(t, writeFile(t, "sales_budget_q2.csv", "Product,Qty,Net Sales\nWidget,140,\"1,400.00\"\nGadget,100,\"2,000.00\"\nDoohickey,10,\"250.00\"\n"))
	var got struct {
		Rows []struct {
			Product  string  `json:"Product"`
			Status   string  `json:"status"`
			Variance float64 `json:"variance"`
			Price    float64 `json:"price"`
			Volume   float64 `json:"volume"`
			Mix      float64 `json:"mix"`
			NewLost  float64 `json:"new_lost"`
		} `json:"rows"`
		Notes  []string `json:"notes"`
		Method string   `json:"method"`
	}
	runJSON(t, sharedSession(t), "p = pvm("+pyStr(actual)+", "+pyStr(budget)+", by='Product')\n"+
		"out = {'rows': p[['Product', 'status', 'variance', 'price', 'volume', 'mix', 'new_lost']].to_dict('records'), "+
		"'notes': p.attrs['notes'], 'method': p.attrs['method']}"+report, &got)
	byName := map[string]int{}
	for i, r := range got.Rows {
		byName[r.Product] = i
		if !cents(r.Price+r.Volume+r.Mix+r.NewLost, r.Variance) {
			t.Errorf("%s: price %.2f + volume %.2f + mix %.2f + new/lost %.2f != variance %.2f", r.Product, r.Price, r.Volume, r.Mix, r.NewLost, r.Variance)
		}
	}
	total, ok := byName["Total"]
	if !ok || total != len(got.Rows)-1 {
		t.Fatalf("no Total row last: %+v", got.Rows)
	}
	wantMoney(t, "total variance", got.Rows[total].Variance, (1320+345+1520+600)-(1400+2000+250))
	for name, status := range map[string]string{"Widget": "continuing", "Gadget": "continuing", "Gizmo": "new", "Doohickey": "lost"} {
		i, ok := byName[name]
		if !ok || got.Rows[i].Status != status {
			t.Errorf("%s: %+v, want %s", name, got.Rows, status)
		}
	}
	if r := got.Rows[byName["Gizmo"]]; !cents(r.NewLost, 600) || r.Price != 0 || r.Mix != 0 {
		t.Errorf("the new product: %+v, want its 600.00 as new_lost alone", r)
	}
	// Widget: AU 150, BU 140, AP 11.10, BP 10: price (11.10 - 10) * 150
	wantMoney(t, "Widget's price effect", got.Rows[byName["Widget"]].Price, 165)
	notes := strings.Join(got.Notes, "\n")
	for _, want := range []string{"'Qty'", "'Net Sales'", "summed into 3 members"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %s:\n%s", want, notes)
		}
	}
	if !strings.Contains(got.Method, "mix = (AMix - BMix) * AU_total * BP") {
		t.Errorf("method: %q", got.Method)
	}
}
