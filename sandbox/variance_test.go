package sandbox_test

import (
	"strings"
	"testing"
)

// variance() in the real kernel, on tables whose answers are worked out by
// hand: FP&A's conventions for signs, materiality, zero budgets, one-sided
// lines, periods and matching.

// Revenue above budget is better, cost above budget worse; the Total row is
// profit (revenue − cost) when both kinds are there.
func TestVarianceSignsByLineType(t *testing.T) {
	v := runVariance(t, `
a = pd.DataFrame({'line': ['Sales', 'Service revenue', 'Rent', 'Travel', 'Insurance'],
                  'amount': [1100.0, 900.0, 1100.0, 800.0, 500.0]})
b = pd.DataFrame({'line': ['Sales', 'Service revenue', 'Rent', 'Travel', 'Insurance'],
                  'amount': [1000.0, 1000.0, 1000.0, 1000.0, 500.0]})
v = variance(a, b)`)
	want := map[string]struct{ kind, effect string }{
		"Sales": {"revenue", "better"}, "Service revenue": {"revenue", "worse"},
		"Rent": {"cost", "worse"}, "Travel": {"cost", "better"}, "Insurance": {"cost", "on budget"},
	}
	for label, w := range want {
		r := v.row(t, label)
		if r.Kind == nil || *r.Kind != w.kind || r.Effect != w.effect {
			t.Errorf("%s: kind %v effect %q, want %s, %s", label, r.Kind, r.Effect, w.kind, w.effect)
		}
	}
	if r := v.row(t, "Rent"); r.Variance != 100 || r.Pct == nil || *r.Pct != 10 {
		t.Errorf("Rent: variance %v (%v%%), want 100 (10%%)", r.Variance, r.Pct)
	}
	tot := v.total(t)
	// profit: (1100 + 900) − (1100 + 800 + 500) = −400 against (2000 − 2500) = −500
	wantMoney(t, "Total actual", tot.Actual, -400)
	wantMoney(t, "Total budget", tot.Budget, -500)
	if tot.Variance != 100 || tot.Pct == nil || *tot.Pct != 20 || tot.Effect != "better" || v.Bottom != "profit" {
		t.Errorf("Total %+v, bottom line %q", tot, v.Bottom)
	}
	if want := []string{"line", "kind", "actual", "budget", "variance", "variance_pct", "effect", "material"}; strings.Join(v.Columns, ",") != strings.Join(want, ",") {
		t.Errorf("columns %v, want %v", v.Columns, want)
	}
	if v.Dtypes["material"] != "bool" || v.Dtypes["actual"] != "float64" || v.Dtypes["variance_pct"] != "float64" {
		t.Errorf("dtypes %v", v.Dtypes)
	}
	if v.note("revenue", "Sales") == "" || v.note("cost", "Rent", "Travel") == "" {
		t.Errorf("the kinds inferred from names are not in the notes: %q", v.Notes)
	}

	// A cost-only table: the bottom line is the sum, and a sum of costs above budget is worse.
	costs := runVariance(t, `v = variance(pd.DataFrame({'dept': ['IT', 'HR'], 'spend': [120.0, 90.0]}),
                 pd.DataFrame({'dept': ['IT', 'HR'], 'spend': [100.0, 100.0]}), kind='cost')`)
	if tot := costs.total(t); tot.Actual != 210 || tot.Budget != 200 || tot.Effect != "worse" || costs.Bottom != "cost" {
		t.Errorf("cost-only Total %+v, bottom line %q", tot, costs.Bottom)
	}
	if costs.row(t, "HR").Effect != "better" {
		t.Errorf("HR under budget: %+v", costs.row(t, "HR"))
	}
}

// Material exactly at each threshold, and just inside it.
func TestVarianceMaterialAtTheEdges(t *testing.T) {
	frames := `
lines = ['at 5%', 'under 5%', 'at -5%', 'under -5%', 'float edge', 'at abs', 'under abs', 'no budget 7', 'no budget 6.99', 'both zero']
a = pd.DataFrame({'line': lines, 'value': [105.0, 104.99, 95.0, 95.01, 3.15, 150.0, 149.99, 7.0, 6.99, 0.0]})
b = pd.DataFrame({'line': lines, 'value': [100.0, 100.0, 100.0, 100.0, 3.0, 100.0, 100.0, 0.0, 0.0, 0.0]})
`
	cases := []struct {
		call string
		want map[string]bool
	}{
		{"v = variance(a, b, kind='cost')", map[string]bool{
			"at 5%": true, "under 5%": false, "at -5%": true, "under -5%": false, "float edge": true,
			"at abs": true, "under abs": true, "no budget 7": true, "no budget 6.99": true, "both zero": false}},
		{"v = variance(a, b, kind='cost', material_abs=50)", map[string]bool{
			"at 5%": false, "float edge": false, "at abs": true, "under abs": false,
			"no budget 7": false, "no budget 6.99": false, "both zero": false}},
		{"v = variance(a, b, kind='cost', material_abs=7)", map[string]bool{
			"at 5%": false, "at -5%": false, "float edge": false, "at abs": true,
			"no budget 7": true, "no budget 6.99": false}},
		{"v = variance(a, b, kind='cost', material_pct=49.99)", map[string]bool{
			"at 5%": false, "at abs": true, "under abs": true, "no budget 7": true}},
		{"v = variance(a, b, kind='cost', material_pct=50)", map[string]bool{
			"at abs": true, "under abs": false}},
	}
	for _, c := range cases {
		v := runVariance(t, frames+c.call)
		for label, want := range c.want {
			if got := v.row(t, label).Material; got != want {
				r := v.row(t, label)
				t.Errorf("%s: %s material = %v, want %v (variance %v, %v%%)", c.call, label, got, want, r.Variance, r.Pct)
			}
		}
	}
	for _, bad := range []string{"material_pct=-1", "material_pct='5'", "material_abs=-3", "material_pct=float('nan')"} {
		typ, msg := varianceError(t, frames+"variance(a, b, "+bad+")")
		if typ != "ValueError" || !strings.Contains(msg, "material") {
			t.Errorf("%s: %s %q", bad, typ, msg)
		}
	}
}

// A zero budget gives no percentage (NaN, never inf); both sides zero is on budget.
func TestVarianceZeroBudgets(t *testing.T) {
	v := runVariance(t, `
v = variance(pd.DataFrame({'line': ['New hire', 'Grant income', 'Unused', 'Rent'], 'x': [5000.0, 300.0, 0.0, 0.0]}),
             pd.DataFrame({'line': ['New hire', 'Grant income', 'Unused', 'Rent'], 'x': [0.0, 0.0, 0.0, 1000.0]}),
             kind={'New hire': 'cost', 'Grant income': 'revenue', 'Unused': 'cost', 'Rent': 'cost'})`)
	for label, effect := range map[string]string{"New hire": "worse", "Grant income": "better", "Unused": "on budget", "Rent": "better"} {
		r := v.row(t, label)
		if r.Effect != effect {
			t.Errorf("%s: effect %q, want %q", label, r.Effect, effect)
		}
		if label != "Rent" && r.Pct != nil {
			t.Errorf("%s: variance_pct %v with a zero budget, want NaN", label, *r.Pct)
		}
	}
	if r := v.row(t, "Rent"); r.Pct == nil || *r.Pct != -100 {
		t.Errorf("Rent nothing spent of 1000: %v%%, want -100", r.Pct)
	}
	if v.row(t, "Unused").Material || !v.row(t, "New hire").Material {
		t.Errorf("materiality of zero budgets: %+v", v.Rows)
	}
	// profit 300 − 5000 = −4700 against −1000
	if tot := v.total(t); tot.Actual != -4700 || tot.Budget != -1000 || tot.Effect != "worse" {
		t.Errorf("Total %+v", tot)
	}
}

// A line in one file only is kept with 0 on the other side and named in the notes.
func TestVarianceLineInOneFileOnly(t *testing.T) {
	v := runVariance(t, `
v = variance(pd.DataFrame({'account': ['Sales', 'Rent', 'Consulting fees'], 'amount': [500.0, 100.0, 40.0]}),
             pd.DataFrame({'account': ['Sales', 'Rent', 'Travel'], 'amount': [450.0, 100.0, 25.0]}))`)
	if r := v.row(t, "Consulting fees"); r.Actual != 40 || r.Budget != 0 || r.Pct != nil {
		t.Errorf("actuals-only line: %+v", r)
	}
	if r := v.row(t, "Travel"); r.Actual != 0 || r.Budget != 25 || r.Effect != "better" {
		t.Errorf("budget-only line: %+v", r)
	}
	if v.note("actuals only", "Consulting fees") == "" || v.note("budget only", "Travel") == "" {
		t.Errorf("one-sided lines not named: %q", v.Notes)
	}
	if len(v.Rows) != 5 {
		t.Errorf("%d rows, want 4 lines and Total", len(v.Rows))
	}
}

// Wide months in both files, named differently ('2026-01' and 'Jan-26'),
// the actuals through April: year, quarter and month to date.
func TestVarianceWideMonthsToDate(t *testing.T) {
	act := "Account,2026-01,2026-02,2026-03,2026-04,2026-05,2026-06,2026-07,2026-08,2026-09,2026-10,2026-11,2026-12\n" +
		"Revenue,1000,1100,1200,1300,,,,,,,,\n" +
		"Cost of sales,400,450,500,520,,,,,,,,\n" +
		"Salaries,300,300,300,330,,,,,,,,\n"
	bud := "Account,Jan-26,Feb-26,Mar-26,Apr-26,May-26,Jun-26,Jul-26,Aug-26,Sep-26,Oct-26,Nov-26,Dec-26\n" +
		"Revenue,1000,1000,1000,1000,1000,1000,1000,1000,1000,1000,1000,1000\n" +
		"Cost of sales,400,400,400,400,400,400,400,400,400,400,400,400\n" +
		"Salaries,300,300,300,300,300,300,300,300,300,300,300,300\n"
	a := attach(t, writeFile(t, "actuals_2026.csv", act))
	b := attach(t, writeFile(t, "budget_2026.csv", bud))
	cases := []struct {
		period              string
		periods             int
		revenue, rbud, cost float64
	}{
		{`"ytd"`, 4, 4600, 4000, 1870},
		{`None`, 4, 4600, 4000, 1870},
		{`"qtd"`, 1, 1300, 1000, 520},
		{`"mtd"`, 1, 1300, 1000, 520},
		{`"Q1 2026"`, 3, 3300, 3000, 1350},
		{`("Feb 2026", "Mar 2026")`, 2, 2300, 2000, 950},
		{`["2026-01", "2026-03"]`, 2, 2200, 2000, 900},
	}
	for _, c := range cases {
		v := runVariance(t, "v = variance("+pyStr(a)+", "+pyStr(b)+", period="+c.period+")")
		if len(v.Periods) != c.periods {
			t.Errorf("period=%s: summed %q, want %d periods", c.period, v.Periods, c.periods)
		}
		r := v.row(t, "Revenue")
		wantMoney(t, "period="+c.period+" Revenue actual", r.Actual, c.revenue)
		wantMoney(t, "period="+c.period+" Revenue budget", r.Budget, c.rbud)
		wantMoney(t, "period="+c.period+" Cost of sales actual", v.row(t, "Cost of sales").Actual, c.cost)
		if v.note("periods summed") == "" {
			t.Errorf("period=%s: the notes do not say which periods were summed: %q", c.period, v.Notes)
		}
	}
	v := runVariance(t, "v = variance("+pyStr(a)+", "+pyStr(b)+", period='ytd')")
	if strings.Join(v.Periods, ",") != "2026-01,2026-02,2026-03,2026-04" || v.Period == nil || *v.Period != "year to date" {
		t.Errorf("ytd periods %q (%v)", v.Periods, v.Period)
	}
	// YTD profit: 4600 − 1870 − 1230 = 1500 against 4000 − 1600 − 1200 = 1200
	if tot := v.total(t); !cents(tot.Actual, 1500) || !cents(tot.Budget, 1200) {
		t.Errorf("ytd Total %+v", tot)
	}
	for _, bad := range []string{`"Jul 2027"`, `"soon"`} {
		typ, msg := varianceError(t, "variance("+pyStr(a)+", "+pyStr(b)+", period="+bad+")")
		if typ != "ValueError" || !strings.Contains(msg, "period=") {
			t.Errorf("period=%s: %s %q", bad, typ, msg)
		}
	}
}

// Account codes match lines whose names differ; names match where there are no codes.
func TestVarianceCodesMatchWhereNamesDiffer(t *testing.T) {
	v := runVariance(t, `
a = pd.DataFrame({'Account': [4000, 5000, 6100, 6200], 'Name': ['Product Sales', 'COGS', 'Office rent', 'Travel'],
                  'Amount': [1200.0, 500.0, 300.0, 80.0]})
b = pd.DataFrame({'Account': [6100, 4000, 5000, 6300], 'Name': ['Rent', 'Sales - Products', 'Cost of goods sold', 'Travel'],
                  'Amount': [300.0, 1000.0, 450.0, 100.0]})
v = variance(a, b)`)
	if r := v.row(t, "Product Sales"); r.Budget != 1000 || r.Labels[0] != "4000" {
		t.Errorf("4000: %+v", r)
	}
	if r := v.row(t, "Office rent"); r.Budget != 300 || r.Effect != "on budget" {
		t.Errorf("6100: %+v", r)
	}
	// Travel has code 6200 here and 6300 in the budget: unmatched by code, matched by name.
	if r := v.row(t, "Travel"); r.Actual != 80 || r.Budget != 100 {
		t.Errorf("Travel: %+v", r)
	}
	if strings.Join(v.Labels, ",") != "Account,Name" || len(v.Rows) != 5 {
		t.Errorf("labels %v, %d rows", v.Labels, len(v.Rows))
	}
	if v.note("matched by account code", "Product Sales", "Sales - Products") == "" {
		t.Errorf("the renamed lines are not named: %q", v.Notes)
	}
}

// Long data: dates, a scenario column saying Actual or Budget, a type column.
func TestVarianceLongWithScenario(t *testing.T) {
	v := runVariance(t, `
rows = []
for m in range(1, 7):
    for acct, kind, act, bud in [('Sales', 'Revenue', 1000 + m, 1000), ('Rent', 'Expense', 200, 200), ('Travel', 'Expense', 50 * m, 100)]:
        if m <= 4:
            rows.append(('2026-%02d-15' % m, acct, kind, 'Actual', act))
        rows.append(('2026-%02d-01' % m, acct, kind, 'Budget', bud))
df = pd.DataFrame(rows, columns=['date', 'account', 'type', 'scenario', 'amount'])
df['date'] = pd.to_datetime(df['date'])
v = variance(df, period='ytd')`)
	wantMoney(t, "Sales actual", v.row(t, "Sales").Actual, 4010)
	wantMoney(t, "Sales budget", v.row(t, "Sales").Budget, 4000)
	wantMoney(t, "Travel actual", v.row(t, "Travel").Actual, 500)
	wantMoney(t, "Travel budget", v.row(t, "Travel").Budget, 400)
	if len(v.Periods) != 4 || v.note("the column 'type'") == "" {
		t.Errorf("periods %q, notes %q", v.Periods, v.Notes)
	}
}

// What the call cannot classify is named in the notes, marked 'unknown',
// and kept out of a profit; kind= settles it.
func TestVarianceUnclassifiedLinesAreNamed(t *testing.T) {
	frames := `
a = pd.DataFrame({'line': ['Sales', 'Rent', 'Suspense'], 'x': [100.0, 50.0, 30.0]})
b = pd.DataFrame({'line': ['Sales', 'Rent', 'Suspense'], 'x': [100.0, 50.0, 10.0]})
`
	v := runVariance(t, frames+"v = variance(a, b)")
	if r := v.row(t, "Suspense"); r.Kind != nil || r.Effect != "unknown" {
		t.Errorf("Suspense: %+v", r)
	}
	if v.note("not classified", "Suspense") == "" || v.note("left out of the bottom line", "Suspense") == "" {
		t.Errorf("notes %q", v.Notes)
	}
	if tot := v.total(t); tot.Actual != 50 || tot.Budget != 50 {
		t.Errorf("Total %+v", tot)
	}
	v = runVariance(t, frames+"v = variance(a, b, kind={'Suspense': 'cost'})")
	if r := v.row(t, "Suspense"); r.Effect != "worse" || v.total(t).Actual != 20 {
		t.Errorf("with kind=: %+v, Total %+v", r, v.total(t))
	}
	typ, msg := varianceError(t, frames+"variance(a, b, kind={'Suspense': 'asset'})")
	if typ != "ValueError" || !strings.Contains(msg, "'revenue' or 'cost'") {
		t.Errorf("a bad kind: %s %q", typ, msg)
	}
}

// Costs written as negative amounts are read as costs; a repeated line is summed.
func TestVarianceSignConventionAndDuplicates(t *testing.T) {
	v := runVariance(t, `
a = pd.DataFrame({'line': ['Revenue', 'Wages', 'Rent', 'Rent'], 'x': [1000.0, -600.0, -100.0, -50.0]})
b = pd.DataFrame({'line': ['Revenue', 'Wages', 'Rent'], 'x': [1000.0, -500.0, -150.0]})
v = variance(a, b)`)
	if r := v.row(t, "Wages"); r.Actual != 600 || r.Budget != 500 || r.Effect != "worse" {
		t.Errorf("Wages: %+v", r)
	}
	if r := v.row(t, "Rent"); r.Actual != 150 || r.Effect != "on budget" {
		t.Errorf("Rent: %+v", r)
	}
	if v.note("costs are negative amounts") == "" || v.note("repeated in the actuals", "Rent") == "" {
		t.Errorf("notes %q", v.Notes)
	}
	if tot := v.total(t); tot.Actual != 250 || tot.Budget != 350 {
		t.Errorf("Total %+v", tot)
	}
}

// by= names the lines by several columns; revenue written as credits
// (negative, as SAP exports it) is read as revenue; an actuals column naming
// a span of months picks the budget's months.
func TestVarianceByCreditsAndSpans(t *testing.T) {
	v := runVariance(t, `
a = pd.DataFrame({'code': ['4000', '4000', '6000'], 'region': ['N', 'S', 'N'], 'type': ['revenue', 'revenue', 'cost'], 'amt': [100., 50., 30.]})
b = pd.DataFrame({'code': ['4000', '4000', '6000'], 'region': ['N', 'S', 'N'], 'amt': [90., 60., 30.]})
v = variance(a, b, by=['code', 'region'], kind='type', value='amt')`)
	if strings.Join(v.Labels, ",") != "code,region" || len(v.Rows) != 4 {
		t.Fatalf("labels %v, rows %+v", v.Labels, v.Rows)
	}
	if r := v.Rows[1]; strings.Join(r.Labels, " ") != "4000 S" || r.Actual != 50 || r.Budget != 60 || r.Effect != "worse" {
		t.Errorf("4000 S: %+v", r)
	}

	v = runVariance(t, `
a = pd.DataFrame({'Konto': ['8400', '8300', '4100', '4200'], 'Text': ['Erlöse 19%', 'Erlöse 7%', 'Löhne', 'Miete'], 'Ist': [-1000., -200., 400., 100.]})
b = pd.DataFrame({'Konto': ['8400', '8300', '4100', '4200'], 'Text': ['Erlöse 19%', 'Erlöse 7%', 'Löhne', 'Miete'], 'Plan': [-900., -250., 380., 100.]})
v = variance(a, b)`)
	if r := v.row(t, "Erlöse 19%"); r.Actual != 1000 || r.Effect != "better" {
		t.Errorf("credit revenue: %+v", r)
	}
	if tot := v.total(t); tot.Actual != 700 || tot.Budget != 670 || v.note("revenue is negative (credits)") == "" {
		t.Errorf("Total %+v, notes %q", tot, v.Notes)
	}

	v = runVariance(t, `
a = pd.DataFrame({'line': ['Revenue', 'Opex'], 'Jan - Feb 2026': [220., 105.]})
b = pd.DataFrame({'line': ['Revenue', 'Opex'], 'January 2026': [100., 50.], 'February 2026': [100., 50.], 'March 2026': [100., 50.]})
v = variance(a, b)`)
	if r := v.row(t, "Revenue"); r.Budget != 200 || len(v.Periods) != 2 {
		t.Errorf("span: %+v, periods %q", r, v.Periods)
	}
	typ, msg := varianceError(t, `variance(pd.DataFrame({'line': ['Revenue'], 'actual': [1.]}),
         pd.DataFrame({'line': ['Revenue'], 'Jan 2026': [1.], 'Feb 2026': [1.]}))`)
	if typ != "ValueError" || !strings.Contains(msg, "pass period=") {
		t.Errorf("one amount against a budget by month: %s %q", typ, msg)
	}
}

// A pivot's columns (('amount', 'Feb'), ('amount', 'Jan'), sorted by name)
// are months in the calendar's order; a second number column beside the
// amount is neither a code nor a line.
func TestVariancePivotsAndExtraColumns(t *testing.T) {
	frames := `
df = pd.DataFrame({'account': ['Sales', 'Sales', 'Rent', 'Rent'], 'month': ['Jan', 'Feb', 'Jan', 'Feb'], 'amount': [10., 12., 5., 5.]})
bud = df.assign(amount=[10., 10., 5., 4.])
`
	for _, call := range []string{
		"v = variance(df.pivot_table(index='account', columns='month', values=['amount'], aggfunc='sum'), bud.pivot_table(index='account', columns='month', values='amount', aggfunc='sum'), period='ytd')",
		"v = variance(df.assign(qty=[1, 2, 3, 4]), bud, period='ytd')",
	} {
		v := runVariance(t, frames+call)
		if strings.Join(v.Periods, ",") != "Jan,Feb" || strings.Join(v.Labels, ",") != "account" || len(v.Rows) != 3 {
			t.Fatalf("%s: periods %q, labels %v, rows %+v", call, v.Periods, v.Labels, v.Rows)
		}
		if r := v.row(t, "Sales"); r.Actual != 22 || r.Budget != 20 {
			t.Errorf("%s: Sales %+v", call, r)
		}
		if r := v.row(t, "Rent"); r.Actual != 10 || r.Budget != 9 || r.Effect != "worse" {
			t.Errorf("%s: Rent %+v", call, r)
		}
	}
	v := runVariance(t, frames+"v = variance(df.assign(qty=[1, 2, 3, 4]), bud.assign(qty=0))")
	if v.note("the amounts are taken from 'amount'") == "" {
		t.Errorf("the choice of the amount column is not said: %q", v.Notes)
	}
}
