"""variance() in constant currency: the FX effect and the constant-currency variance."""

import pandas as pd
import pytest

KINDS = {'Sales': 'revenue', 'Travel': 'cost'}
ACTUAL = pd.DataFrame(
    {'line': ['Sales', 'Sales', 'Travel'], 'currency': ['EUR', 'USD', 'EUR'], 'amount': [1000.0, 500.0, 100.0]}
)
BUDGET = pd.DataFrame(
    {'line': ['Sales', 'Sales', 'Travel'], 'currency': ['EUR', 'USD', 'EUR'], 'amount': [900.0, 500.0, 80.0]}
)
RATES = pd.DataFrame({'Currency': ['EUR', 'USD'], 'Actual rate': [1.10, 1.0], 'Budget rate': [1.05, 1.0]})


def line(v, name):
    return v[v['line'] == name].iloc[0]


def test_the_fx_effect_and_constant_currency_add_up(kernel):
    v = kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS, rates=RATES)
    sales = line(v, 'Sales')
    assert sales['actual'] == pytest.approx(1000 * 1.10 + 500)
    assert sales['budget'] == pytest.approx(900 * 1.05 + 500)
    # constant currency: the actuals at the budget rate against the budget
    assert sales['variance_cc'] == pytest.approx((1000 - 900) * 1.05)
    assert sales['fx_effect'] == pytest.approx(1000 * (1.10 - 1.05))
    for _, r in v.iterrows():
        assert r['variance_cc'] + r['fx_effect'] == pytest.approx(r['variance'])
    assert v.attrs['fx']['currencies'] == ['EUR', 'USD']
    assert any('constant currency' in n for n in v.attrs['notes'])


def test_rates_as_a_rate_and_a_side_column_or_a_dict(kernel):
    long = pd.DataFrame(
        {'ccy': ['EUR', 'EUR', 'USD', 'USD'], 'type': ['Actual', 'Budget'] * 2, 'rate': [1.10, 1.05, 1.0, 1.0]}
    )
    a = kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS, rates=long)
    b = kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS, rates={'EUR': (1.10, 1.05), 'USD': (1, 1)})
    assert list(a['fx_effect']) == pytest.approx(list(b['fx_effect']))


def test_several_currencies_are_never_summed_unconverted(kernel):
    with pytest.raises(ValueError) as e:
        kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS)
    assert 'EUR, USD' in str(e.value) and 'rates=' in str(e.value)


def test_a_currency_without_a_rate_is_named(kernel):
    with pytest.raises(ValueError) as e:
        kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS, rates={'EUR': (1.1, 1.05)})
    assert 'USD' in str(e.value)


def test_one_export_holding_both_sides_in_several_currencies_is_refused(kernel):
    both = pd.DataFrame(
        {'line': ['Sales', 'Sales'], 'currency': ['EUR', 'USD'], 'Actual': [1.0, 2.0], 'Budget': [1.0, 1.0]}
    )
    with pytest.raises(ValueError) as e:
        kernel.variance(both)
    assert 'EUR, USD' in str(e.value)


def test_one_export_holding_both_sides_in_one_currency(kernel):
    both = pd.DataFrame(
        {'line': ['Sales', 'Rent'], 'currency': ['EUR', 'EUR'], 'Actual': [2.0, 1.0], 'Budget': [1.0, 1.0]}
    )
    v = kernel.variance(both, kind={'Sales': 'revenue', 'Rent': 'cost'})
    assert v.iloc[-1]['variance'] == pytest.approx(1.0)


def test_currency_codes_in_lower_case_and_with_spaces_are_the_same_currency(kernel):
    lower = ACTUAL.assign(currency=['eur', ' usd', 'Eur'])
    v = kernel.variance(lower, BUDGET, value='amount', kind=KINDS, rates={'EUR': (1.10, 1.05), 'usd': (1, 1)})
    w = kernel.variance(ACTUAL, BUDGET, value='amount', kind=KINDS, rates=RATES)
    assert list(v['fx_effect']) == pytest.approx(list(w['fx_effect']))
    assert list(v['variance']) == pytest.approx(list(w['variance']))
