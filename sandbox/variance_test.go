package sandbox_test

import (
	"strings"
	"testing"
)

// variance() in the real kernel, on tables whose answers are worked out by
// hand: periods and matching. Signs, materiality, zero budgets and
// one-sided lines are pure Python, tested by pytest
// (pykernel/tests/variance/test_rules.py).

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
