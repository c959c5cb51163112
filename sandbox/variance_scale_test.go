package sandbox_test

import (
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// explain() over a million ledger lines and 10,000 accounts, refunds and
// reversals among them, with the budget at the same detail: every material
// line's rows add up to its variance to the cent, and the member planted
// as its driver is its first row, carrying all of it, for both
// dimensions.
func TestExplainAMillionLedgerLines(t *testing.T) {
	var got struct {
		Lines, Bad int
		First      []string
	}
	runJSON(t, sharedSession(t), sandboxtest.ExplainBenchData+`
v = variance(a, b, kind='cost')
e = explain(v, led, budget=bdet, by=['vendor', 'department'], top=3)
bad, first = [], []
lines = v.iloc[:-1].set_index('account')
for (line, dim), rows in e.groupby(['line', 'dimension'], sort=False):
    want = planted.loc[line]
    top = rows.iloc[0]
    if abs(rows.variance.sum() - lines.loc[line, 'variance']) >= 0.005 or top.member != want[dim] or abs(top.variance - want.plant) >= 0.005:
        bad.append('%s %s: %s %.2f, want %s %.2f' % (line, dim, top.member, top.variance, want[dim], want.plant))
    first.append(line)
out = {'Lines': len(set(first)), 'Bad': len(bad), 'First': bad[:5]}`+report, &got)
	if got.Lines < 5000 || got.Bad != 0 {
		t.Errorf("explain() on a million lines: %d lines explained, %d wrong: %v", got.Lines, got.Bad, got.First)
	}
}

// pvm() over 100,000 products, 500 of them new and 500 lost: each
// product's effects add up to its variance, and the Total row's to the
// whole variance, to the cent.
func TestPVMOnAHundredThousandProducts(t *testing.T) {
	var got struct {
		Rows, Bad, New, Lost int
		Gap                  float64
	}
	runJSON(t, sharedSession(t), sandboxtest.PVMBenchData+`
p = pvm(a, b, by='product')
body, total = p[p['product'] != 'Total'], p[p['product'] == 'Total'].iloc[0]
eff = body[['price', 'volume', 'mix', 'new_lost']].fillna(0).sum(axis=1)
bad = int(((eff - body.variance).abs() >= 0.005).sum())
out = {'Rows': len(body), 'Bad': bad, 'New': int((body.status == 'new').sum()), 'Lost': int((body.status == 'lost').sum()),
       'Gap': float(abs(total[['price', 'volume', 'mix', 'new_lost']].fillna(0).sum() - (a.revenue.sum() - b.revenue.sum())))}`+report, &got)
	if got.Rows != 100000 || got.Bad != 0 || got.New != 500 || got.Lost != 500 || got.Gap >= 0.005 {
		t.Errorf("pvm() on 100,000 products: %+v", got)
	}
}
