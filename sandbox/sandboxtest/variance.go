package sandboxtest

// VarianceBenchData makes 10,000 lines × 12 months of budget and actuals through
// September (revenue and cost accounts, names the kinds are read from), as
// DataFrames a and b and as the CSV files /tmp/bench_actuals.csv and
// /tmp/bench_budget.csv: the data of the variance and report benchmarks.
const VarianceBenchData = `
import numpy as np
rng = np.random.default_rng(2026)
n = 10000
months = ['2026-%02d' % m for m in range(1, 13)]
words = ['Product sales', 'Service revenue', 'Rent', 'Salaries', 'Travel', 'Software subscriptions', 'Freight', 'Insurance']
b = pd.DataFrame({'Account': [str(40000 + i) for i in range(n)], 'Name': ['%s %d' % (words[i % 8], i) for i in range(n)]})
a = b.copy()
for m in months:
    b[m] = rng.normal(10000, 800, n).round(2)
for m in months[:9]:
    a[m] = (b[m] * rng.normal(1, 0.07, n)).round(2)
for m in months[9:]:
    a[m] = np.nan
a.to_csv('/tmp/bench_actuals.csv', index=False)
b.to_csv('/tmp/bench_budget.csv', index=False)
`
