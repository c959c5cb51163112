"""pvm(): price, volume and mix, reconciling exactly to the variance."""

import pandas as pd
import pytest


def frame(rows):
    return pd.DataFrame(rows, columns=['product', 'units', 'revenue'])


BUDGET = frame([('A', 100, 1000.0), ('B', 100, 2000.0), ('C', 50, 500.0)])
ACTUAL = frame([('A', 120, 1320.0), ('B', 80, 1520.0), ('C', 50, 500.0)])


def row(out, name):
    return out[out['product'] == name].iloc[0]


def test_textbook_split(kernel):
    out = kernel.pvm(ACTUAL, BUDGET, by='product')
    a = row(out, 'A')
    # A: AP 11, BP 10, AU 120: price (11 - 10) * 120 = 120
    assert a['price'] == pytest.approx(120.0)
    # continuing units 250 both sides: no volume effect
    assert out['volume'].abs().max() == pytest.approx(0.0)
    # A's mix: (120/250 - 100/250) * 250 * 10 = 200
    assert a['mix'] == pytest.approx(200.0)
    b = row(out, 'B')
    assert b['price'] == pytest.approx((19.0 - 20.0) * 80)
    assert b['mix'] == pytest.approx((80 / 250 - 100 / 250) * 250 * 20)
    total = row(out, 'Total')
    assert total['variance'] == pytest.approx(ACTUAL['revenue'].sum() - BUDGET['revenue'].sum())


@pytest.mark.parametrize(
    'actual_rows',
    [
        [('A', 130, 1400.0), ('B', 90, 1600.0), ('C', 40, 300.0)],
        [('A', 10, 99.0), ('B', 300, 7000.0), ('C', 1, 1.0)],
        [('A', 100, 1000.0), ('B', 100, 2000.0), ('C', 50, 500.0)],
    ],
)
def test_reconciles_on_every_row(kernel, actual_rows):
    out = kernel.pvm(frame(actual_rows), BUDGET, by='product')
    parts = out[['price', 'volume', 'mix', 'new_lost']].sum(axis=1)
    assert (parts - out['variance']).abs().max() < 1e-9
    lines = out[out['product'] != 'Total']
    assert row(out, 'Total')['variance'] == pytest.approx(lines['variance'].sum())


def test_new_and_lost_are_their_own_effect(kernel):
    actual = frame([('A', 100, 1100.0), ('B', 100, 2000.0), ('N', 10, 300.0)])
    out = kernel.pvm(actual, BUDGET, by='product')
    assert row(out, 'N')['status'] == 'new'
    assert row(out, 'N')['new_lost'] == pytest.approx(300.0)
    assert row(out, 'C')['status'] == 'lost'
    assert row(out, 'C')['new_lost'] == pytest.approx(-500.0)
    assert row(out, 'C')[['price', 'volume', 'mix']].abs().sum() == 0
    assert any('new' in n for n in out.attrs['notes'])
    assert out['actual_price'].notna().sum() >= 3  # no division by zero left a value behind


def test_price_column_and_lines_summed(kernel):
    lines = pd.DataFrame({'SKU': ['A', 'A', 'B'], 'Qty': [5, 5, 10], 'Unit Price': [2.0, 4.0, 1.0]})
    budget = pd.DataFrame({'SKU': ['A', 'B'], 'Qty': [10, 10], 'Unit Price': [3.0, 1.0]})
    out = kernel.pvm(lines, budget, by='SKU', price='Unit Price')
    a = out[out['SKU'] == 'A'].iloc[0]
    assert a['actual'] == pytest.approx(30.0)
    assert a['actual_price'] == pytest.approx(3.0)
    assert any('summed' in n for n in out.attrs['notes'])


def test_cost_is_better_below(kernel):
    out = kernel.pvm(frame([('A', 100, 900.0)]), frame([('A', 100, 1000.0)]), by='product', kind='cost')
    assert row(out, 'A')['effect'] == 'better'


@pytest.mark.parametrize(
    'call, error',
    [
        (lambda k: k.pvm(ACTUAL, BUDGET, by='region'), "no column 'region'"),
        (lambda k: k.pvm(ACTUAL, BUDGET, by='product', kind='margin'), "kind= is 'revenue' or 'cost'"),
        (lambda k: k.pvm(ACTUAL.drop(columns='units'), BUDGET, by='product'), 'pass units='),
        (lambda k: k.pvm(ACTUAL, BUDGET, by=3), 'by= names the member column'),
    ],
)
def test_bad_calls_say_what_to_do(kernel, call, error):
    with pytest.raises((ValueError, KeyError, TypeError)) as e:
        call(kernel)
    assert error in str(e.value)


def test_text_amounts_with_thousands_separators(kernel):
    actual = pd.DataFrame({'product': ['A', 'B'], 'units': ['1,200', '300'], 'sales': ['12,000.00', '3,300.00']})
    budget = pd.DataFrame({'product': ['A', 'B'], 'units': ['1,000', '300'], 'sales': ['10,000.00', '3,000.00']})
    out = kernel.pvm(actual, budget, by='product')
    assert row(out, 'Total')['variance'] == pytest.approx(2300.0)
    assert row(out, 'A')['actual_units'] == pytest.approx(1200.0)


def test_a_zero_unit_line_and_a_product_sold_in_one_period_only(kernel):
    # Z sold no units in the budget but carries an amount (a fee): no price
    # to divide by; Q was sold in the actual's period only
    budget = frame([('A', 100, 1000.0), ('B', 100, 2000.0), ('Z', 0, 50.0)])
    actual = frame([('A', 110, 1100.0), ('B', 90, 1800.0), ('Z', 0, 80.0), ('Q', 5, 75.0)])
    out = kernel.pvm(actual, budget, by='product')
    parts = out[['price', 'volume', 'mix', 'new_lost']].fillna(0).sum(axis=1)
    assert (parts - out['variance']).abs().max() < 1e-9
    assert row(out, 'Total')['variance'] == pytest.approx(actual['revenue'].sum() - budget['revenue'].sum())
    assert row(out, 'Q')['status'] == 'new' and row(out, 'Q')['new_lost'] == pytest.approx(75.0)
    assert not out[['price', 'volume', 'mix', 'new_lost']].isin([float('inf'), float('-inf')]).any().any()
