package sandboxtest

// ExplainBenchData makes a general ledger of a million lines over 10,000
// cost accounts (200 vendors, 20 departments; 3% of the lines refunds, and
// 2% posted again reversed) as led, and the budget at the same detail as
// bdet: the actuals, less one planted overrun per account on its first
// vendor and department (6 to 20% of its actuals for six accounts in
// ten, material; under 1% for the rest), kept in planted (account,
// vendor, department, plant). a and b are the two sides summed by account, for variance(): so
// each account's variance is its plant, all of it its planted member's.
const ExplainBenchData = `
import numpy as np, pandas as pd
rng = np.random.default_rng(36)
n, k = 1_000_000, 10_000
accounts = np.array(['%05d Cost %d' % (60000 + i, i) for i in range(k)])
vendors = np.array(['Vendor %03d' % i for i in range(200)])
depts = np.array(['Dept %02d' % i for i in range(20)])
amount = rng.integers(100, 500000, n) / 100
amount[rng.random(n) < 0.03] *= -1
led = pd.DataFrame({'date': '2026-05-15', 'account': accounts[rng.integers(0, k, n)],
                    'vendor': vendors[rng.integers(0, 200, n)], 'department': depts[rng.integers(0, 20, n)],
                    'memo': 'invoice', 'amount': amount})
rev = led.sample(frac=0.02, random_state=1).assign(amount=lambda d: -d.amount, memo='reversal')
led = pd.concat([led, rev], ignore_index=True)
bdet = led.groupby(['account', 'vendor', 'department'], as_index=False).amount.sum()
first = bdet.groupby('account').head(1).index
total = led.groupby('account').amount.sum().loc[bdet.loc[first, 'account']].to_numpy()
share = np.where(rng.random(len(first)) < 0.6, rng.uniform(0.06, 0.2, len(first)), rng.uniform(0, 0.01, len(first)))
plant = np.round(total * share * rng.choice([-1, 1], len(first)), 2)
bdet.loc[first, 'amount'] -= plant
planted = bdet.loc[first, ['account', 'vendor', 'department']].assign(plant=plant).set_index('account')
a = led.groupby('account', as_index=False).amount.sum()
b = bdet.groupby('account', as_index=False).amount.sum()
`

// PVMBenchData makes 100,000 products' units and revenue, actual and
// budget (prices and volumes moved by up to 10% and 20%), as a and b,
// the last 500 products actual only and the first 500 budget only.
const PVMBenchData = `
import numpy as np, pandas as pd
rng = np.random.default_rng(36)
k = 100_000
prod = np.array(['P%06d' % i for i in range(k)])
bu = rng.integers(1, 1000, k); bp = rng.uniform(5, 50, k).round(2)
au = (bu * rng.uniform(0.8, 1.2, k)).round().astype(int); ap = (bp * rng.uniform(0.9, 1.1, k)).round(2)
b = pd.DataFrame({'product': prod, 'units': bu, 'revenue': (bu * bp).round(2)}).iloc[500:]
a = pd.DataFrame({'product': prod, 'units': au, 'revenue': (au * ap).round(2)}).iloc[:-500]
`
