package sandbox_test

import (
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// BenchmarkVariance10kLinesYTD times variance() with period='ytd' on 10,000
// lines × 12 months inside the sandbox: from DataFrames, from CSV files
// (read as the profile reads them), and the bridge; beside it the baseline,
// the plain pandas a model would write (a merge on the code, the YTD sums,
// variance and percent), which knows no signs, sections or materiality.
func BenchmarkVariance10kLinesYTD(b *testing.B) {
	benchKernel(b, sandboxtest.VarianceBenchData, []benchCase{
		{"variance-frames", "r = variance(a, b, period='ytd')"},
		{"variance-files", "r = variance('/tmp/bench_actuals.csv', '/tmp/bench_budget.csv', period='ytd')"},
		{"variance-and-bridge", "r = variance(a, b, period='ytd'); fig = bridge(r); plt.close(fig)"},
		{"baseline-pandas-merge", `ytd = months[:9]
m = a[['Account', 'Name'] + ytd].merge(b[['Account'] + ytd], on='Account', how='outer', suffixes=('_a', '_b'))
r = pd.DataFrame({'Account': m['Account'], 'actual': m[[c + '_a' for c in ytd]].sum(axis=1), 'budget': m[[c + '_b' for c in ytd]].sum(axis=1)})
r['variance'] = r['actual'] - r['budget']
r['variance_pct'] = r['variance'] / r['budget'].abs() * 100`},
	})
}
