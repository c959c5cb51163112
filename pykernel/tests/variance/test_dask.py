"""variance(), bridge(), explain() and pvm() on dask DataFrames: reduced on
the cluster to the small table each needs, then the same numbers to the
cent as on the pandas frame, on sets whose truth is known by construction."""

import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

warnings.filterwarnings('ignore', 'Dask dataframe query planning', FutureWarning)
dask = pytest.importorskip('dask')
dd = pytest.importorskip('dask.dataframe')

PARTS = 4
KINDS = {
    'Product Revenue': 'revenue',
    'Service Revenue': 'revenue',
    'Cost of Goods Sold': 'cost',
    'Travel': 'cost',
    'Software': 'cost',
    'Rent': 'cost',
    'Salaries': 'cost',
    'Consulting': 'cost',
}
MONTHS = ['Jan 2026', 'Feb 2026', 'Mar 2026']
VENDORS = ['Delta', 'Hilton', 'Uber', 'Atlassian', 'Slack', 'WeWork', 'Acme', 'Globex']
DEPARTMENTS = ['Sales', 'Eng', 'Ops', 'G&A']


@pytest.fixture(autouse=True)
def synchronous():
    # no cluster: the partitions run one after the other in the test's process
    with dask.config.set(scheduler='synchronous'):
        yield


def on_cluster(frame, npartitions=PARTS):
    return dd.from_pandas(frame, npartitions=npartitions)


def with_empty_partition(ddf):
    """ddf with an empty partition first, as a filter leaves one."""
    return dd.concat([dd.from_pandas(ddf._meta, npartitions=1), ddf])


def split(total, k, rng):
    """k integers (some negative: credits) adding up to total exactly."""
    parts = rng.integers(-total // (2 * k) - 50, 2 * total // k + 50, k - 1) if k > 1 else np.zeros(0, np.int64)
    return [int(x) for x in parts] + [int(total - parts.sum())]


def truth(rng, accounts, months=MONTHS):
    """(account, month) -> its amount in cents."""
    return {(a, m): int(rng.integers(1_000_00, 500_000_00)) for a in accounts for m in months}


def ledger(rng, cents, rows=(5, 60)):
    """The postings adding up to cents per (account, month), shuffled so
    that every account spans the partitions, each with a vendor, a
    department and a memo; Amount in integer cents."""
    out = []
    for (a, m), total in cents.items():
        for x in split(total, int(rng.integers(*rows)), rng):
            out.append((a, m, VENDORS[int(rng.integers(len(VENDORS)))], DEPARTMENTS[int(rng.integers(4))], x))
    frame = pd.DataFrame(out, columns=['Account', 'Month', 'Vendor', 'Department', 'Amount'])
    frame = frame.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).reset_index(drop=True)
    frame['Memo'] = ['posting %d' % i for i in range(len(frame))]
    return frame


def as_money(frame, column='Amount'):
    """The same postings in currency units (floats: 1234.56)."""
    out = frame.copy()
    out[column] = out[column] / 100.0
    return out


def spans_partitions(ddf, column, value):
    return sum(bool((ddf.get_partition(i)[column] == value).any().compute()) for i in range(ddf.npartitions))


def same(a, b, exact):
    """Two result tables equal: to the bit for integer amounts, to the cent for floats."""
    if exact:
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    else:
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=0.005)


def cluster_notes(out):
    return [n for n in out.attrs['notes'] if 'on the cluster' in n]


def plain_notes(out):
    return [n for n in out.attrs['notes'] if 'on the cluster' not in n]


def line(v, name):
    return v[v['Account'] == name].iloc[0]


def sums_by(cents, scale):
    out = {}
    for (a, _m), x in cents.items():
        out[a] = out.get(a, 0) + x
    return {a: x / scale for a, x in out.items()}


def check_variance_truth(v, actual, budget, scale):
    """Each line and the bottom line as constructed; an account on one side only is 0 on the other."""
    want_a, want_b = sums_by(actual, scale), sums_by(budget, scale)
    for name in set(want_a) | set(want_b):
        row = line(v, name)
        assert row['actual'] == pytest.approx(want_a.get(name, 0), abs=0.005)
        assert row['budget'] == pytest.approx(want_b.get(name, 0), abs=0.005)
        assert row['variance'] == pytest.approx(want_a.get(name, 0) - want_b.get(name, 0), abs=0.005)
    profit = lambda w: sum(x if KINDS[a] == 'revenue' else -x for a, x in w.items())  # noqa: E731
    total = v[v['Account'] == 'Total'].iloc[0]
    assert total['actual'] == pytest.approx(profit(want_a), abs=0.005)
    assert total['budget'] == pytest.approx(profit(want_b), abs=0.005)
    lines = v[v['Account'] != 'Total']
    sign = lines['kind'].map({'revenue': 1.0, 'cost': -1.0})
    assert float((lines['variance'] * sign).sum()) == pytest.approx(float(total['variance']), abs=0.005)


def sides(seed):
    """Actuals without Consulting, a budget without Software: a missing account on each side."""
    rng = np.random.default_rng(seed)
    actual = truth(rng, [a for a in KINDS if a != 'Consulting'])
    budget = truth(rng, [a for a in KINDS if a != 'Software'])
    return rng, actual, budget


@pytest.mark.parametrize('cents', [True, False], ids=['integer cents', 'float amounts'])
def test_variance_and_bridge_long_ledger(kernel, cents):
    rng, a_cents, b_cents = sides(7 if cents else 8)
    scale = 1 if cents else 100
    actual = ledger(rng, a_cents)[['Account', 'Month', 'Amount']]
    budget = ledger(rng, b_cents, rows=(1, 3))[['Account', 'Month', 'Amount']]
    if not cents:
        actual, budget = as_money(actual), as_money(budget)
    a_dd, b_dd = on_cluster(actual), on_cluster(budget, 3)
    assert spans_partitions(a_dd, 'Account', 'Travel') == PARTS
    v_pd = kernel.variance(actual, budget, kind=KINDS)
    v_dd = kernel.variance(a_dd, b_dd, kind=KINDS)
    same(v_pd, v_dd, cents)
    check_variance_truth(v_dd, a_cents, b_cents, scale)
    assert plain_notes(v_dd) == v_pd.attrs['notes']  # the rows counted as pandas counts them
    notes = cluster_notes(v_dd)
    assert notes == [
        'the actuals: reduced 4 partitions (%d rows) to 21 account × period rows on the cluster' % len(actual),
        'the budget: reduced 3 partitions (%d rows) to 21 account × period rows on the cluster' % len(budget),
    ]
    same(kernel.bridge_data(v_pd), kernel.bridge_data(v_dd), cents)
    bars = kernel.bridge_data(v_dd)
    assert float(bars['value'].iloc[1:-1].sum()) == pytest.approx(bars.attrs['gap'], abs=0.005)


def test_variance_a_dask_side_beside_a_pandas_one_and_a_period(kernel):
    rng, a_cents, b_cents = sides(9)
    actual = ledger(rng, a_cents)[['Account', 'Month', 'Amount']]
    budget = ledger(rng, b_cents, rows=(1, 2))[['Account', 'Month', 'Amount']]
    for period in (None, 'Feb 2026', ('Jan 2026', 'Feb 2026')):
        v_pd = kernel.variance(actual, budget, kind=KINDS, period=period)
        v_dd = kernel.variance(with_empty_partition(on_cluster(actual)), budget, kind=KINDS, period=period)
        same(v_pd, v_dd, True)
        assert len(cluster_notes(v_dd)) == 1
    months = ['Jan 2026', 'Feb 2026']
    want = {k: x for k, x in a_cents.items() if k[1] in months}
    v = kernel.variance(on_cluster(actual), on_cluster(budget), kind=KINDS, period=tuple(months))
    check_variance_truth(v, want, {k: x for k, x in b_cents.items() if k[1] in months}, 1)


def test_variance_forecast_and_prior_year_on_the_cluster(kernel):
    rng, a_cents, b_cents = sides(10)
    actual = ledger(rng, a_cents)[['Account', 'Month', 'Amount']]
    budget = ledger(rng, b_cents, rows=(1, 2))[['Account', 'Month', 'Amount']]
    forecast = ledger(rng, truth(rng, list(KINDS)), rows=(2, 8))[['Account', 'Month', 'Amount']]
    prior_cents = truth(rng, list(KINDS), [m.replace('2026', '2025') for m in MONTHS])
    prior = ledger(rng, prior_cents, rows=(2, 8))[['Account', 'Month', 'Amount']]
    v_pd = kernel.variance(actual, budget, kind=KINDS, forecast=forecast, prior=prior)
    v_dd = kernel.variance(
        on_cluster(actual), on_cluster(budget), kind=KINDS, forecast=on_cluster(forecast), prior=on_cluster(prior)
    )
    same(v_pd, v_dd, True)
    assert plain_notes(v_dd) == v_pd.attrs['notes']
    assert [n.split(':')[0] for n in cluster_notes(v_dd)] == [
        'the actuals',
        'the budget',
        'the forecast',
        'the prior year',
    ]
    py = sums_by(prior_cents, 1)
    for name in ('Travel', 'Rent'):
        assert line(v_dd, name)['prior'] == pytest.approx(py[name])


def test_variance_both_sides_in_one_frame_by_scenario_and_dates(kernel):
    # one frame, a scenario column saying Actual or Budget, posting dates (summed by month)
    rng, a_cents, b_cents = sides(11)
    rows = []
    for scen, cents in (('Actual', a_cents), ('Budget', b_cents)):
        for (a, m), total in cents.items():
            start = pd.Timestamp(m)
            for x in split(total, int(rng.integers(2, 30)), rng):
                rows.append((start + pd.Timedelta(days=int(rng.integers(0, 28))), a, scen, x / 100.0))
    frame = pd.DataFrame(rows, columns=['Date', 'Account', 'Scenario', 'Amount'])
    frame = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    v_pd = kernel.variance(frame, kind=KINDS)
    v_dd = kernel.variance(on_cluster(frame), kind=KINDS)
    same(v_pd, v_dd, False)
    check_variance_truth(v_dd, a_cents, b_cents, 100)
    assert plain_notes(v_dd) == v_pd.attrs['notes']
    (note,) = cluster_notes(v_dd)
    # per-row dates reduced by month: 7 accounts a side, three months
    assert note.endswith('to 42 account × scenario × period rows on the cluster'), note


def test_variance_wide_and_text_amounts(kernel):
    # a column per month, amounts written as text ('1,234.56'), the lines spread over the partitions
    rng, a_cents, b_cents = sides(12)

    def wide(cents):
        accounts = dict.fromkeys(k[0] for k in cents)
        rows = [[a] + [f'{cents[(a, m)] / 100.0:,.2f}' for m in MONTHS] for a in accounts]
        return pd.DataFrame(rows, columns=['Account'] + MONTHS)

    actual, budget = wide(a_cents), wide(b_cents)
    v_pd = kernel.variance(actual, budget, kind=KINDS)
    v_dd = kernel.variance(on_cluster(actual, 3), on_cluster(budget, 2), kind=KINDS)
    same(v_pd, v_dd, False)
    check_variance_truth(v_dd, a_cents, b_cents, 100)
    assert cluster_notes(v_dd)[0].endswith('to 7 account rows on the cluster')


def test_variance_by_a_column_of_a_wide_ledger(kernel):
    rng, a_cents, b_cents = sides(13)
    actual, budget = ledger(rng, a_cents), ledger(rng, b_cents, rows=(1, 4))
    v_pd = kernel.variance(actual, budget, by='Account', value='Amount', kind=KINDS)
    v_dd = kernel.variance(on_cluster(actual), on_cluster(budget), by='Account', value='Amount', kind=KINDS)
    same(v_pd, v_dd, True)
    check_variance_truth(v_dd, a_cents, b_cents, 1)


def test_variance_in_constant_currency_with_a_kind_column(kernel):
    rng, a_cents, b_cents = sides(14)

    def frame(cents, rows):
        out = ledger(rng, cents, rows)[['Account', 'Month', 'Amount']]
        out['Type'] = out['Account'].map(lambda a: 'Income' if KINDS[a] == 'revenue' else 'Expense')
        out['Currency'] = rng.choice(['EUR', 'USD', 'GBP'], len(out))
        return as_money(out)

    actual, budget = frame(a_cents, (5, 40)), frame(b_cents, (2, 6))
    rates = {'EUR': (1.08, 1.10), 'USD': (1.0, 1.0), 'GBP': (1.27, 1.25)}
    v_pd = kernel.variance(actual, budget, kind='Type', rates=rates)
    v_dd = kernel.variance(on_cluster(actual), on_cluster(budget, 2), kind='Type', rates=rates)
    same(v_pd, v_dd, False)
    assert plain_notes(v_dd) == v_pd.attrs['notes']
    # the sums by currency, converted, are the rows converted and summed
    conv = actual['Amount'] * actual['Currency'].map({k: a for k, (a, _) in rates.items()})
    assert line(v_dd, 'Travel')['actual'] == pytest.approx(conv[actual['Account'] == 'Travel'].sum(), abs=0.005)
    assert (v_dd['variance'] - v_dd['variance_cc'] - v_dd['fx_effect']).abs().max() < 0.005
    assert cluster_notes(v_dd)[0].endswith('to 63 account × currency × period rows on the cluster')


def explain_sets(seed, cents):
    rng = np.random.default_rng(seed)
    a_cents = truth(rng, ['Product Revenue', 'Travel', 'Software', 'Rent', 'Salaries'])
    b_cents = truth(rng, ['Product Revenue', 'Travel', 'Software', 'Rent', 'Salaries'])
    actual = ledger(rng, a_cents)
    # the budget at the same detail, without Salaries' postings (not in the detail)
    budget = ledger(rng, {k: x for k, x in b_cents.items() if k[0] != 'Salaries'}, rows=(2, 10))
    if not cents:
        actual, budget = as_money(actual), as_money(budget)
    sum_a = actual.groupby('Account')['Amount'].sum()
    sum_b = budget.groupby('Account')['Amount'].sum().reindex(sum_a.index)
    sum_b['Salaries'] = sum(x for k, x in b_cents.items() if k[0] == 'Salaries') / (1 if cents else 100)
    table_a = pd.DataFrame({'Account': sum_a.index, 'Amount': sum_a.to_numpy()})
    table_b = pd.DataFrame({'Account': sum_b.index, 'Amount': sum_b.to_numpy()})
    kinds = {a: KINDS[a] for a in sum_a.index}
    return actual, budget, table_a, table_b, kinds


@pytest.mark.parametrize('cents', [True, False], ids=['integer cents', 'float amounts'])
def test_explain_share_of_actuals_and_budget_by_member(kernel, cents):
    actual, budget, table_a, table_b, kinds = explain_sets(20 if cents else 21, cents)
    v = kernel.variance(table_a, table_b, kind=kinds, material_pct=0.0)
    a_dd = on_cluster(actual)
    assert spans_partitions(a_dd, 'Account', 'Travel') == PARTS
    for kwargs in ({}, {'by': 'Vendor'}, {'top': 2}):
        e_pd = kernel.explain(v, actual, **kwargs)
        e_dd = kernel.explain(v, a_dd, **kwargs)
        same(e_pd, e_dd, False)
        assert plain_notes(e_dd) == e_pd.attrs['notes']
        assert len(cluster_notes(e_dd)) == 1
        for (name, _dim), rows in e_dd.groupby(['line', 'dimension']):
            assert rows['variance'].sum() == pytest.approx(float(line(v, name)['variance']), abs=0.005)
    assert e_dd.attrs['dimensions'] == ['Vendor', 'Department']  # not the memo, the month or the account
    e_pd = kernel.explain(v, actual, budget=budget, top=len(VENDORS))
    e_dd = kernel.explain(v, a_dd, budget=on_cluster(budget, 3), top=len(VENDORS))
    same(e_pd, e_dd, False)
    assert len(cluster_notes(e_dd)) == 2
    for name in ('Travel', 'Salaries'):
        var = float(line(v, name)['variance'])
        for dim in ('Vendor', 'Department'):
            rows = e_dd[(e_dd['line'] == name) & (e_dd['dimension'] == dim)]
            assert rows['variance'].sum() == pytest.approx(var, abs=0.005)  # reconciles to the cent
    # a member's part is its own actual minus its own budget, as constructed
    travel = e_dd[(e_dd['line'] == 'Travel') & (e_dd['dimension'] == 'Vendor')].set_index('member')
    for vendor in VENDORS:
        want = (
            actual[(actual['Account'] == 'Travel') & (actual['Vendor'] == vendor)]['Amount'].sum()
            - budget[(budget['Account'] == 'Travel') & (budget['Vendor'] == vendor)]['Amount'].sum()
        )
        assert travel.loc[vendor, 'variance'] == pytest.approx(want, abs=0.005)
    # Salaries has no budget postings: its budget is the 'Not in the detail' row
    salaries = e_dd[(e_dd['line'] == 'Salaries') & (e_dd['dimension'] == 'Vendor')].set_index('member')
    assert salaries.loc['Not in the detail', 'variance'] == pytest.approx(
        -float(line(v, 'Salaries')['budget']), abs=0.005
    )
    assert any('not in the detail' in n for n in e_dd.attrs['notes'])


def test_explain_scenario_column_on_the_cluster(kernel):
    actual, budget, table_a, table_b, kinds = explain_sets(22, True)
    both = pd.concat([actual.assign(Scenario='Actual'), budget.assign(Scenario='Budget')], ignore_index=True)
    both = both.sample(frac=1.0, random_state=5).reset_index(drop=True)
    v = kernel.variance(table_a, table_b, kind=kinds, material_pct=0.0)
    e_pd = kernel.explain(v, both, by=['Vendor', 'Department'])
    e_dd = kernel.explain(v, on_cluster(both))
    same(e_pd, e_dd, True)
    (note,) = cluster_notes(e_dd)
    assert 'account × scenario × Vendor' in note
    assert set(e_dd['basis']) == {'budget by member'}


def pvm_lines(rng, plan, price_col):
    """Sales lines: plan is product -> month -> (units, unit price in cents)."""
    rows = []
    for product, months in plan.items():
        for m, (units, price) in months.items():
            for u in split(units, int(rng.integers(1, 12)), rng):
                rows.append((product, m, u, price / 100.0, u * price / 100.0))
    frame = pd.DataFrame(rows, columns=['product', 'month', 'units', 'unit price', 'revenue'])
    frame = frame.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).reset_index(drop=True)
    return frame.drop(columns=['revenue'] if price_col else ['unit price'])


@pytest.mark.parametrize('price_col', [False, True], ids=['revenue column', 'units times price'])
def test_pvm_new_lost_and_a_product_in_one_period(kernel, price_col):
    rng = np.random.default_rng(30)

    def plan(products, months=MONTHS):
        return {p: {m: (int(rng.integers(50, 900)), int(rng.integers(500, 9000))) for m in months} for p in products}

    a_plan = plan(['A', 'B', 'C', 'D']) | plan(['N'], ['Mar 2026'])  # N: new, sold in March only
    b_plan = plan(['A', 'B', 'C', 'D', 'L'])  # L: lost
    actual, budget = pvm_lines(rng, a_plan, price_col), pvm_lines(rng, b_plan, price_col)
    if not price_col:  # the amounts in integer cents
        actual['revenue'] = (actual['revenue'] * 100).round().astype('int64')
        budget['revenue'] = (budget['revenue'] * 100).round().astype('int64')
    args = {'by': 'product', 'price': 'unit price'} if price_col else {'by': 'product'}
    p_pd = kernel.pvm(actual, budget, **args)
    p_dd = kernel.pvm(on_cluster(actual), on_cluster(budget, 3), **args)
    same(p_pd, p_dd, not price_col)
    assert plain_notes(p_dd) == [n for n in p_pd.attrs['notes'] if ' rows summed into ' not in n]
    assert cluster_notes(p_dd) == [
        'the actuals: reduced 4 partitions (%d rows) to 5 members by product on the cluster' % len(actual),
        'the budget: reduced 3 partitions (%d rows) to 5 members by product on the cluster' % len(budget),
    ]
    row = p_dd.set_index('product')
    unit = 100.0 if price_col else 1.0  # prices in currency units; the revenue column in cents
    for name, want in a_plan.items():
        assert row.loc[name, 'actual_units'] == sum(u for u, _ in want.values())
        assert row.loc[name, 'actual'] == pytest.approx(sum(u * p for u, p in want.values()) / unit, abs=0.005)
    assert row.loc['N', 'status'] == 'new' and row.loc['L', 'status'] == 'lost'
    assert row.loc['N', 'new_lost'] == pytest.approx(row.loc['N', 'actual'])
    parts = p_dd[['price', 'volume', 'mix', 'new_lost']].sum(axis=1)
    assert (parts - p_dd['variance']).abs().max() < 0.005
    assert row.loc['Total', 'variance'] == pytest.approx(p_dd[p_dd['product'] != 'Total']['variance'].sum(), abs=0.005)


def test_pvm_by_two_columns_and_a_pandas_budget(kernel):
    rng = np.random.default_rng(31)

    def plan():
        return {p: {m: (int(rng.integers(10, 99)), int(rng.integers(100, 999))) for m in MONTHS} for p in 'XYZ'}

    actual, budget = pvm_lines(rng, plan(), False), pvm_lines(rng, plan(), False)
    p_pd = kernel.pvm(actual, budget, by=['product', 'month'])
    p_dd = kernel.pvm(with_empty_partition(on_cluster(actual)), budget, by=['product', 'month'])
    same(p_pd, p_dd, False)
    assert len(p_dd) == 10  # 9 members and the Total row


def test_a_dask_frame_with_its_index_as_the_lines(kernel):
    rng, a_cents, b_cents = sides(40)
    actual = ledger(rng, a_cents)[['Account', 'Amount']]
    budget = ledger(rng, b_cents, rows=(1, 2))[['Account', 'Amount']]
    by_acct = on_cluster(actual).groupby('Account').Amount.sum()  # a dask Series, the lines its index
    v_pd = kernel.variance(actual.groupby('Account').Amount.sum(), budget, kind=KINDS)
    v_dd = kernel.variance(by_acct, on_cluster(budget), kind=KINDS)
    same(v_pd, v_dd, True)


def test_pandas_inputs_never_import_dask():
    code = (
        'import sys; sys.path.insert(0, "tests"); import types, pandas as pd; from conftest import load_kernel; '
        'k = types.SimpleNamespace(**load_kernel()); '
        'a = pd.DataFrame({"Account": ["Revenue", "Rent"], "Amount": [10.0, 5.0]}); '
        'v = k.variance(a, a.assign(Amount=[9.0, 6.0])); '
        'k.explain(v, pd.DataFrame({"Account": ["Rent"] * 3, "Vendor": ["a", "b", "a"], "Amount": [1.0, 2.0, 2.0]})); '
        'k.pvm(pd.DataFrame({"p": ["a"], "units": [1], "revenue": [2.0]}), '
        'pd.DataFrame({"p": ["a"], "units": [1], "revenue": [3.0]}), by="p"); '
        'print(sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed")))'
    )
    root = pathlib.Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == '[]'


def test_a_dask_frame_elsewhere_is_refused_not_computed(kernel):
    a = pd.DataFrame({'Account': ['Revenue', 'Rent'], 'Amount': [10.0, 5.0]})
    rates = on_cluster(pd.DataFrame({'currency': ['EUR'], 'actual': [1.1], 'budget': [1.2]}), 1)
    with pytest.raises(TypeError, match=r'\.compute\(\)'):
        kernel.variance(a.assign(currency='EUR'), a.assign(currency='EUR'), rates=rates)
