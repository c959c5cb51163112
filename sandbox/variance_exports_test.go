package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One-file "Budget vs. Actuals" exports as accounting systems write them
// (testdata/variance: QuickBooks Online, one total and by month; Xero;
// NetSuite; an SAP-style German Plan/Ist-Vergleich in cp1252 with ';' and
// decimal commas): the sections give the kinds, the subtotals are checked
// and never summed, and the bottom line is the file's own Net Income.
func TestVarianceOneFileExports(t *testing.T) {
	cases := []struct {
		file, call       string
		lines            int
		netLabel         string
		actual, budget   float64 // the file's own Net Income row
		labels           string
		periods          int
		line             string // one line's known answer
		lineAct, lineBud float64
		lineKind         string
	}{
		{"quickbooks_budget_vs_actuals.csv", "", 28, "Net Income", 1242626.94, 1221650.00, "line", 0,
			"Plants and Soil", 118634.98, 119500.00, "revenue"},
		{"quickbooks_monthly.csv", ", period='ytd'", 6, "Net Income", 19734.92, 19500.00, "line", 3,
			"Sales", 126360.75, 120000.00, "revenue"},
		{"xero_budget_variance.csv", "", 13, "Net Profit", 23961.50, 21950.00, "Account", 0,
			"Freight & Courier", 2210.40, 2500.00, "cost"},
		{"netsuite_budget_vs_actual.csv", "", 12, "Net Income", 145138.44, 152050.00, "Financial Row", 0,
			"4900 - Sales Returns", -6120.00, -5000.00, "revenue"},
		{"sap_plan_ist_de.csv", "", 15, "Jahresüberschuss", 204125.16, 194500.00, "Konto,Bezeichnung", 0,
			"Gehälter", 398200.00, 390000.00, "cost"},
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.file, ".csv"), func(t *testing.T) {
			v := runVariance(t, "v = variance("+pyStr(attach(t, c.file))+c.call+")")
			if len(v.Rows) != c.lines+1 {
				var got []string
				for _, r := range v.Rows {
					got = append(got, r.Label)
				}
				t.Errorf("%d rows, want %d lines and Total: %q", len(v.Rows), c.lines, got)
			}
			tot := v.total(t)
			wantMoney(t, "Total actual", tot.Actual, c.actual)
			wantMoney(t, "Total budget", tot.Budget, c.budget)
			if v.FileTotal == nil || v.FileTotal.Label != c.netLabel || !v.FileTotal.OK ||
				v.FileTotal.Actual == nil || !cents(*v.FileTotal.Actual, tot.Actual) {
				t.Errorf("file_total %+v, want %q equal to the Total row", v.FileTotal, c.netLabel)
			}
			if v.Bottom != "profit" || strings.Join(v.Labels, ",") != c.labels || len(v.Periods) != c.periods {
				t.Errorf("bottom line %q, labels %v, periods %q", v.Bottom, v.Labels, v.Periods)
			}
			for _, r := range v.Rows[:len(v.Rows)-1] {
				low := strings.ToLower(r.Label)
				if strings.HasPrefix(low, "total") || strings.HasPrefix(low, "summe") || strings.Contains(low, "net income") ||
					strings.Contains(low, "gross profit") || r.Label == "Rohertrag" || r.Label == "Betriebsergebnis" {
					t.Errorf("a subtotal is among the lines: %q", r.Label)
				}
				if r.Kind == nil {
					t.Errorf("line %q has no kind; the sections say", r.Label)
				}
			}
			if len(v.Subtotals) < 4 {
				t.Errorf("only %d subtotals recognised", len(v.Subtotals))
			}
			for _, s := range v.Subtotals {
				if !s.OK {
					t.Errorf("subtotal %q does not check: %q", s.Label, v.Notes)
				}
			}
			if n := v.note("the lines it totals give"); n != "" {
				t.Errorf("a mismatch where the file adds up: %s", n)
			}
			if v.note("kinds from the section headers") == "" || len(v.Title) < 2 {
				t.Errorf("notes %q, title %q", v.Notes, v.Title)
			}
			r := v.row(t, c.line)
			wantMoney(t, c.line+" actual", r.Actual, c.lineAct)
			wantMoney(t, c.line+" budget", r.Budget, c.lineBud)
			if r.Kind == nil || *r.Kind != c.lineKind {
				t.Errorf("%s: kind %v, want %s", c.line, r.Kind, c.lineKind)
			}
		})
	}

	t.Run("SectionsOverNames", func(t *testing.T) {
		v := runVariance(t, "v = variance("+pyStr(attach(t, "quickbooks_budget_vs_actuals.csv"))+")")
		// 'Maintenance and Repair' is income under Landscaping Services and a cost under Expenses;
		// 'Services' is income because its section says so.
		if r := v.row(t, "Maintenance and Repair (Labor)"); *r.Kind != "revenue" || r.Effect != "worse" || !r.Material {
			t.Errorf("%+v", r)
		}
		if r := v.row(t, "Maintenance and Repair (Expenses)"); *r.Kind != "cost" || r.Effect != "better" {
			t.Errorf("%+v", r)
		}
		if r := v.row(t, "Miscellaneous"); r.Budget != 0 || !r.Material || r.Pct != nil {
			t.Errorf("an unbudgeted line: %+v", r)
		}
	})

	t.Run("MonthlyTotalsLeftOut", func(t *testing.T) {
		// The export's Total Budget covers Jan–Jun; year to date is Jan–Mar, the months the actuals have.
		v := runVariance(t, "v = variance("+pyStr(attach(t, "quickbooks_monthly.csv"))+", period='ytd')")
		if strings.Join(v.Periods, ",") != "Jan 2026,Feb 2026,Mar 2026" || v.note("'Total Budget'", "left out") == "" {
			t.Errorf("periods %q, notes %q", v.Periods, v.Notes)
		}
		v = runVariance(t, "v = variance("+pyStr(attach(t, "quickbooks_monthly.csv"))+", period='Feb 2026')")
		wantMoney(t, "Feb Sales", v.row(t, "Sales").Actual, 39850.50)
	})

	t.Run("SubtotalMismatchNamed", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join("testdata", "variance", "xero_budget_variance.csv"))
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), `Total Operating Expenses,"87,957.55"`, `Total Operating Expenses,"87,975.55"`, 1)
		if bad == string(b) {
			t.Fatal("the fixture changed: its Total Operating Expenses row is not there")
		}
		v := runVariance(t, "v = variance("+pyStr(attach(t, writeFile(t, "xero_tampered.csv", bad)))+")")
		if v.note("'Total Operating Expenses'", "87,975.55", "87,957.55") == "" {
			t.Errorf("the wrong subtotal is not named: %q", v.Notes)
		}
		// The lines decide, not the file's subtotal.
		wantMoney(t, "Total actual", v.total(t).Actual, 23961.50)
	})

	t.Run("ReadByTheProfileCall", func(t *testing.T) {
		// The model read the export with pandas first: the same answer from the DataFrame.
		v := runVariance(t, "v = variance(pd.read_csv("+pyStr(attach(t, "xero_budget_variance.csv"))+", skiprows=4))")
		wantMoney(t, "Total actual", v.total(t).Actual, 23961.50)
		wantMoney(t, "Total budget", v.total(t).Budget, 21950.00)
		if len(v.Rows) != 14 {
			t.Errorf("%d rows", len(v.Rows))
		}
	})

	t.Run("ExcelWithOutlineColumns", func(t *testing.T) {
		// A workbook that indents by column (QuickBooks Desktop's Excel export): titles, sections in
		// column A, accounts in column C, numbers as numbers, a Net Income row.
		v := runVariance(t, `
import openpyxl
wb = openpyxl.Workbook(); ws = wb.active; ws.title = 'Budget vs Actual'
rows = [['Rock Castle Construction'], ['Profit & Loss Budget vs. Actual'], ['January through March 2026'], [],
        [None, None, None, 'Jan - Mar 26', 'Budget', '$ Over Budget', '% of Budget'],
        ['Ordinary Income/Expense'], [None, 'Income'],
        [None, None, '40100 · Construction Income', 180500.0, 175000.0, 5500.0, 1.031],
        [None, None, '40500 · Reimbursement Income', 2200.0, 3000.0, -800.0, 0.733],
        [None, 'Total Income', None, 182700.0, 178000.0, 4700.0, 1.026],
        [None, 'Cost of Goods Sold'],
        [None, None, '50100 · Cost of Goods Sold', 61200.0, 58000.0, 3200.0, 1.055],
        [None, 'Total COGS', None, 61200.0, 58000.0, 3200.0, 1.055],
        [None, 'Gross Profit', None, 121500.0, 120000.0, 1500.0, 1.0125],
        [None, 'Expense'],
        [None, None, '60100 · Automobile', 3100.0, 2500.0, 600.0, 1.24],
        [None, None, '62100 · Insurance', 4800.0, 4800.0, 0.0, 1.0],
        [None, None, '64200 · Office Supplies', 950.0, 1200.0, -250.0, 0.79],
        [None, 'Total Expense', None, 8850.0, 8500.0, 350.0, 1.041],
        ['Net Ordinary Income', None, None, 112650.0, 111500.0, 1150.0, 1.01],
        ['Net Income', None, None, 112650.0, 111500.0, 1150.0, 1.01]]
for r in rows:
    ws.append(r)
wb.save('/tmp/rock_castle.xlsx')
v = variance('/tmp/rock_castle.xlsx')`)
		if len(v.Rows) != 7 {
			t.Fatalf("%d rows: %+v", len(v.Rows), v.Rows)
		}
		wantMoney(t, "Total actual", v.total(t).Actual, 112650)
		wantMoney(t, "Total budget", v.total(t).Budget, 111500)
		if r := v.row(t, "40500 · Reimbursement Income"); *r.Kind != "revenue" || r.Effect != "worse" || !r.Material {
			t.Errorf("%+v", r)
		}
		if v.FileTotal == nil || !v.FileTotal.OK || v.note("the lines it totals give") != "" {
			t.Errorf("file total %+v, notes %q", v.FileTotal, v.Notes)
		}
	})
}
