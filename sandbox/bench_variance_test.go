package sandbox_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkVariance10kLinesYTD times variance() with period='ytd' on 10,000
// lines × 12 months inside the sandbox: from DataFrames, from CSV files
// (read as the profile reads them), and the bridge; beside it the baseline,
// the plain pandas a model would write (a merge on the code, the YTD sums,
// variance and percent), which knows no signs, sections or materiality.
func BenchmarkVariance10kLinesYTD(b *testing.B) {
	_, s := benchSession(b)
	ctx := context.Background()
	res, err := s.Exec(ctx, sandboxtest.VarianceBenchData, nil)
	if err != nil || res.Error != nil {
		b.Fatalf("make the data: %v %+v", err, res.Error)
	}
	cases := []struct{ name, code string }{
		{"variance-frames", "v = variance(a, b, period='ytd')"},
		{"variance-files", "v = variance('/tmp/bench_actuals.csv', '/tmp/bench_budget.csv', period='ytd')"},
		{"variance-and-bridge", "v = variance(a, b, period='ytd'); fig = bridge(v); plt.close(fig)"},
		{"baseline-pandas-merge", `ytd = months[:9]
m = a[['Account', 'Name'] + ytd].merge(b[['Account'] + ytd], on='Account', how='outer', suffixes=('_a', '_b'))
v = pd.DataFrame({'Account': m['Account'], 'actual': m[[c + '_a' for c in ytd]].sum(axis=1), 'budget': m[[c + '_b' for c in ytd]].sum(axis=1)})
v['variance'] = v['actual'] - v['budget']
v['variance_pct'] = v['variance'] / v['budget'].abs() * 100`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var total float64
			for i := 0; i < b.N; i++ {
				code := "import time as _bt, sys as _bs, io as _bio\n_e = _bs.stderr; _bs.stderr = _bio.StringIO()\n_t = _bt.perf_counter()\n" +
					c.code + "\n_el = _bt.perf_counter() - _t\n_bs.stderr = _e\nprint(len(v), _el)"
				res, err := s.Exec(ctx, code, nil)
				if err != nil || res.Error != nil {
					b.Fatalf("%s: %v %+v", c.name, err, res.Error)
				}
				f := strings.Fields(res.Stdout)
				if len(f) != 2 || (f[0] != "10001" && f[0] != "10000") {
					b.Fatalf("%s printed %q", c.name, res.Stdout)
				}
				sec, _ := strconv.ParseFloat(f[1], 64)
				total += sec
			}
			b.ReportMetric(total*1000/float64(b.N), "kernel-ms")
		})
	}
}
