"""variance() on tables whose answers are worked out by hand: FP&A's
conventions for signs, materiality, zero budgets and one-sided lines (moved
from the Go side's sandbox/variance_test.go, cases kept)."""

import math

import pandas as pd
import pytest


def row(v, label):
    labels = v.attrs.get('labels') or [v.columns[0]]
    hit = v[v[labels[-1]].astype(str) == label]
    assert len(hit) == 1, 'no single row %r in %s' % (label, list(v[labels[-1]]))
    return hit.iloc[0]


def note(v, *parts):
    """The first note holding every part, or ''."""
    return next((n for n in v.attrs['notes'] if all(p in n for p in parts)), '')


def frames(lines, actual, budget, col='amount', name='line'):
    return pd.DataFrame({name: lines, col: actual}), pd.DataFrame({name: lines, col: budget})


# Revenue above budget is better, cost above budget worse; the Total row is
# profit (revenue - cost) when both kinds are there.
@pytest.fixture(scope='module')
def signs(kernel):
    a, b = frames(
        ['Sales', 'Service revenue', 'Rent', 'Travel', 'Insurance'],
        [1100.0, 900.0, 1100.0, 800.0, 500.0],
        [1000.0, 1000.0, 1000.0, 1000.0, 500.0],
    )
    return kernel.variance(a, b)


@pytest.mark.parametrize(
    ('label', 'kind', 'effect'),
    [
        ('Sales', 'revenue', 'better'),
        ('Service revenue', 'revenue', 'worse'),
        ('Rent', 'cost', 'worse'),
        ('Travel', 'cost', 'better'),
        ('Insurance', 'cost', 'on budget'),
    ],
)
def test_effect_follows_the_line_type(signs, label, kind, effect):
    r = row(signs, label)
    assert (r['kind'], r['effect']) == (kind, effect)


def test_the_total_is_profit(signs):
    r = row(signs, 'Rent')
    assert (r['variance'], r['variance_pct']) == (100, 10)
    tot = row(signs, 'Total')
    # profit: (1100 + 900) - (1100 + 800 + 500) = -400 against (2000 - 2500) = -500
    assert (tot['actual'], tot['budget'], tot['variance'], tot['variance_pct'], tot['effect']) == (
        -400,
        -500,
        100,
        20,
        'better',
    )
    assert signs.attrs['bottom_line'] == 'profit'
    assert list(signs.columns) == ['line', 'kind', 'actual', 'budget', 'variance', 'variance_pct', 'effect', 'material']
    dtypes = {c: str(t) for c, t in signs.dtypes.items()}
    assert (dtypes['material'], dtypes['actual'], dtypes['variance_pct']) == ('bool', 'float64', 'float64')
    assert note(signs, 'revenue', 'Sales') and note(signs, 'cost', 'Rent', 'Travel'), signs.attrs['notes']


def test_a_cost_only_table_sums_costs(kernel):
    a, b = frames(['IT', 'HR'], [120.0, 90.0], [100.0, 100.0], col='spend', name='dept')
    v = kernel.variance(a, b, kind='cost')
    tot = row(v, 'Total')
    assert (tot['actual'], tot['budget'], tot['effect'], v.attrs['bottom_line']) == (210, 200, 'worse', 'cost')
    assert row(v, 'HR')['effect'] == 'better'


EDGE_LINES = [
    'at 5%',
    'under 5%',
    'at -5%',
    'under -5%',
    'float edge',
    'at abs',
    'under abs',
    'no budget 7',
    'no budget 6.99',
    'both zero',
]
EDGES = [
    (
        {},
        {
            'at 5%': True,
            'under 5%': False,
            'at -5%': True,
            'under -5%': False,
            'float edge': True,
            'at abs': True,
            'under abs': True,
            'no budget 7': True,
            'no budget 6.99': True,
            'both zero': False,
        },
    ),
    (
        {'material_abs': 50},
        {
            'at 5%': False,
            'float edge': False,
            'at abs': True,
            'under abs': False,
            'no budget 7': False,
            'no budget 6.99': False,
            'both zero': False,
        },
    ),
    (
        {'material_abs': 7},
        {
            'at 5%': False,
            'at -5%': False,
            'float edge': False,
            'at abs': True,
            'no budget 7': True,
            'no budget 6.99': False,
        },
    ),
    ({'material_pct': 49.99}, {'at 5%': False, 'at abs': True, 'under abs': True, 'no budget 7': True}),
    ({'material_pct': 50}, {'at abs': True, 'under abs': False}),
]


# Material exactly at each threshold, and just inside it.
@pytest.mark.parametrize(('args', 'want'), EDGES, ids=[str(e[0]) for e in EDGES])
def test_material_at_the_edges(kernel, args, want):
    a, b = frames(
        EDGE_LINES,
        [105.0, 104.99, 95.0, 95.01, 3.15, 150.0, 149.99, 7.0, 6.99, 0.0],
        [100.0, 100.0, 100.0, 100.0, 3.0, 100.0, 100.0, 0.0, 0.0, 0.0],
        col='value',
    )
    v = kernel.variance(a, b, kind='cost', **args)
    assert {label: bool(row(v, label)['material']) for label in want} == want


@pytest.mark.parametrize(
    'bad', [{'material_pct': -1}, {'material_pct': '5'}, {'material_abs': -3}, {'material_pct': float('nan')}]
)
def test_bad_thresholds_are_refused(kernel, bad):
    a, b = frames(EDGE_LINES, [1.0] * 10, [1.0] * 10, col='value')
    with pytest.raises(ValueError, match='material'):
        kernel.variance(a, b, **bad)


# A zero budget gives no percentage (NaN, never inf); both sides zero is on budget.
def test_zero_budgets(kernel):
    lines = ['New hire', 'Grant income', 'Unused', 'Rent']
    a, b = frames(lines, [5000.0, 300.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1000.0], col='x')
    v = kernel.variance(a, b, kind={'New hire': 'cost', 'Grant income': 'revenue', 'Unused': 'cost', 'Rent': 'cost'})
    effects = {label: row(v, label)['effect'] for label in lines}
    assert effects == {'New hire': 'worse', 'Grant income': 'better', 'Unused': 'on budget', 'Rent': 'better'}
    for label in ['New hire', 'Grant income', 'Unused']:
        assert math.isnan(row(v, label)['variance_pct']), label
    assert row(v, 'Rent')['variance_pct'] == -100
    assert not row(v, 'Unused')['material'] and row(v, 'New hire')['material']
    tot = row(v, 'Total')  # profit 300 - 5000 = -4700 against -1000
    assert (tot['actual'], tot['budget'], tot['effect']) == (-4700, -1000, 'worse')


# A line in one file only is kept with 0 on the other side and named in the notes.
def test_a_line_in_one_file_only(kernel):
    v = kernel.variance(
        pd.DataFrame({'account': ['Sales', 'Rent', 'Consulting fees'], 'amount': [500.0, 100.0, 40.0]}),
        pd.DataFrame({'account': ['Sales', 'Rent', 'Travel'], 'amount': [450.0, 100.0, 25.0]}),
    )
    r = row(v, 'Consulting fees')
    assert (r['actual'], r['budget']) == (40, 0) and math.isnan(r['variance_pct'])
    r = row(v, 'Travel')
    assert (r['actual'], r['budget'], r['effect']) == (0, 25, 'better')
    assert note(v, 'actuals only', 'Consulting fees') and note(v, 'budget only', 'Travel'), v.attrs['notes']
    assert len(v) == 5  # 4 lines and Total
