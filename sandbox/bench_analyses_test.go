package sandbox_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkExplainMillionLines times explain() over a million ledger lines
// and 10,000 accounts inside the sandbox, with the budget at the same
// detail and without one; beside it the baseline, the plain pandas group-by
// a user would write (actual less budget by account and vendor), which
// knows no reconciliation, sign or materiality.
func BenchmarkExplainMillionLines(b *testing.B) {
	benchKernel(b, sandboxtest.ExplainBenchData+"v = variance(a, b, kind='cost')", []benchCase{
		{"explain-budget-by-member", "r = explain(v, led, budget=bdet, by=['vendor', 'department'])"},
		{"explain-share-of-actuals", "r = explain(v, led, by=['vendor', 'department'])"},
		{"baseline-pandas-groupby", `r = led.groupby(['account', 'vendor']).amount.sum().sub(bdet.groupby(['account', 'vendor']).amount.sum(), fill_value=0)
r = r[r.abs() >= 0.005]`},
	})
}

// BenchmarkPVM100kProducts times pvm() over 100,000 products (500 new and
// 500 lost) inside the sandbox; beside it the baseline, the textbook
// formulas in plain pandas on the products both sides have.
func BenchmarkPVM100kProducts(b *testing.B) {
	benchKernel(b, sandboxtest.PVMBenchData, []benchCase{
		{"pvm", "r = pvm(a, b, by='product')"},
		{"baseline-pandas-formulas", `m = a.merge(b, on='product', suffixes=('_a', '_b'))
ap, bp = m.revenue_a / m.units_a, m.revenue_b / m.units_b
au, bu = m.units_a.sum(), m.units_b.sum()
r = pd.DataFrame({'price': (ap - bp) * m.units_a, 'volume': (au - bu) * m.units_b / bu * bp,
                  'mix': (m.units_a / au - m.units_b / bu) * au * bp})`},
	})
}

type benchCase struct{ name, code string }

// benchKernel runs setup once, then times each case's code in the kernel
// (the notes it prints left out), reporting the kernel's own time.
func benchKernel(b *testing.B, setup string, cases []benchCase) {
	_, s := benchSession(b)
	ctx := context.Background()
	res, err := s.Exec(ctx, setup, nil)
	if err != nil || res.Error != nil {
		b.Fatalf("make the data: %v %+v", err, res.Error)
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var total float64
			for i := 0; i < b.N; i++ {
				code := "import time as _bt, sys as _bs, io as _bio\n_e = _bs.stderr; _bs.stderr = _bio.StringIO()\n_t = _bt.perf_counter()\n" +
					c.code + "\n_el = _bt.perf_counter() - _t\n_bs.stderr = _e\nprint(len(r), _el)"
				res, err := s.Exec(ctx, code, nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%s: %v %+v", c.name, err, res.Error)
				}
				f := strings.Fields(res.Stdout)
				if len(f) != 2 || f[0] == "0" {
					b.Fatalf("%s printed %q", c.name, res.Stdout)
				}
				sec, _ := strconv.ParseFloat(f[1], 64)
				total += sec
			}
			b.ReportMetric(total*1000/float64(b.N), "kernel-ms")
		})
	}
}
