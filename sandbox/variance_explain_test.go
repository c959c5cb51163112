package sandbox_test

import (
	"strings"
	"testing"
)

// explain() in the real kernel on an attached general-ledger export (its
// amounts as text with thousands separators, a memo and a date column):
// the account and amount columns are found and named in the notes, each
// material line's rows add up to its variance to the cent for every
// dimension found, and what the ledger lacks is a row of its own.
func TestExplainOnAnAttachedLedger(t *testing.T) {
	actual := attach(t, writeFile(t, "pl_actual_q2.csv", "Account,Amount\nRevenue,\"250,000.00\"\nTravel,\"18,450.25\"\nSoftware,\"9,000.00\"\nRent,\"15,000.00\"\n"))
	budget := attach(t, writeFile(t, "pl_budget_q2.csv", "Account,Amount\nRevenue,\"250,000.00\"\nTravel,\"12,000.00\"\nSoftware,\"12,500.00\"\nRent,\"15,000.00\"\n"))
	ledger := attach(t, writeFile(t, "gl_detail_q2.csv", "Posting Date,GL Account,Vendor,Department,Memo,Amount\n"+
		"2026-04-03,Travel,Delta,Sales,NYC offsite,\"6,200.00\"\n2026-04-19,Travel,Hilton,Sales,NYC offsite,\"4,100.25\"\n"+
		"2026-05-02,Travel,Delta,Engineering,conference,\"3,150.00\"\n2026-05-20,Travel,Uber,Sales,rides,\"1,000.00\"\n"+
		"2026-06-11,Software,Atlassian,Engineering,renewal,\"6,000.00\"\n2026-06-12,Software,Slack,Engineering,seats,\"3,000.00\"\n"))
	var got struct {
		Lines map[string]float64 `json:"lines"`
		Rows  []struct {
			Line      string  `json:"line"`
			Dimension string  `json:"dimension"`
			Member    string  `json:"member"`
			Variance  float64 `json:"variance"`
		} `json:"rows"`
		Notes []string `json:"notes"`
	}
	runJSON(t, sharedSession(t), "v = variance("+pyStr(actual)+", "+pyStr(budget)+")\ne = explain(v, "+pyStr(ledger)+")\n"+
		"out = {'lines': {str(r['Account']): float(r['variance']) for _, r in v.iterrows()}, "+
		"'rows': e[['line', 'dimension', 'member', 'variance']].to_dict('records'), 'notes': e.attrs['notes']}"+report, &got)
	sums := map[string]float64{}
	dims := map[string]bool{}
	for _, r := range got.Rows {
		sums[r.Line+"|"+r.Dimension] += r.Variance
		dims[r.Dimension] = true
	}
	if !dims["Vendor"] || !dims["Department"] || dims["Memo"] || dims["Posting Date"] {
		t.Errorf("dimensions %v, want Vendor and Department", dims)
	}
	for key, sum := range sums {
		line := strings.SplitN(key, "|", 2)[0]
		wantMoney(t, key, sum, got.Lines[line])
	}
	if _, ok := sums["Travel|Vendor"]; !ok {
		t.Fatalf("Travel (over budget by 6,450.25) not explained: %+v", got.Rows)
	}
	missing := false
	for _, r := range got.Rows {
		if r.Line == "Travel" && r.Member == "Not in the detail" {
			missing = true
			// its share of the line's actuals: 4,000.00 of 18,450.25
			wantMoney(t, "Travel not in the detail", r.Variance, (18450.25-12000)*4000/18450.25)
		}
	}
	notes := strings.Join(got.Notes, "\n")
	for _, want := range []string{"'GL Account'", "'Amount'", "no budget by member"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %s:\n%s", want, notes)
		}
	}
	if !missing {
		t.Errorf("the share of Travel the ledger lacks has no row: %+v", got.Rows)
	}
}
