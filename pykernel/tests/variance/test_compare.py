"""variance() against the forecast and the prior year beside the budget."""

import pandas as pd
import pytest

KINDS = {'Sales': 'revenue', 'Travel': 'cost', 'Rent': 'cost'}


def wide(rows, months):
    return pd.DataFrame(rows, columns=['line'] + months)


ACTUAL = wide([('Sales', 100.0, 110.0), ('Travel', 12.0, 9.0), ('Rent', 5.0, 5.0)], ['Apr 2026', 'May 2026'])
BUDGET = wide([('Sales', 100.0, 100.0), ('Travel', 10.0, 10.0), ('Rent', 5.0, 5.0)], ['Apr 2026', 'May 2026'])
FORECAST = wide([('Sales', 105.0, 108.0), ('Travel', 12.0, 10.0), ('Rent', 5.0, 5.0)], ['Apr 2026', 'May 2026'])
PRIOR = wide(
    [('Sales', 90.0, 95.0, 999.0), ('Travel', 8.0, 8.0, 999.0), ('Rent', 4.0, 4.0, 999.0)],
    ['Apr 2025', 'May 2025', 'Jun 2025'],
)


def line(v, name):
    return v[v['line'] == name].iloc[0]


def test_three_comparisons_in_one_table(kernel):
    v = kernel.variance(ACTUAL, BUDGET, kind=KINDS, forecast=FORECAST, prior=PRIOR)
    sales = line(v, 'Sales')
    assert sales['variance'] == pytest.approx(10.0)
    assert sales['forecast'] == pytest.approx(213.0)
    assert sales['variance_fc'] == pytest.approx(-3.0)
    assert sales['effect_fc'] == 'worse'
    # the prior year's Apr and May, not its June
    assert sales['prior'] == pytest.approx(185.0)
    assert sales['variance_py'] == pytest.approx(25.0)
    assert sales['variance_py_pct'] == pytest.approx(25.0 / 185.0 * 100)
    travel = line(v, 'Travel')
    assert travel['effect_fc'] == 'better' and travel['effect_py'] == 'worse'
    total = v.iloc[-1]
    assert total['variance_fc'] == pytest.approx(total['actual'] - total['forecast'])
    assert total['prior'] == pytest.approx((90 + 95) - (8 + 8) - (4 + 4))
    assert set(v.attrs['comparisons']) == {'forecast', 'prior'}


def test_without_comparisons_the_table_is_as_before(kernel):
    v = kernel.variance(ACTUAL, BUDGET, kind=KINDS)
    assert list(v.columns) == ['line', *kernel.VARIANCE_COLUMNS]
    assert 'comparisons' not in v.attrs


def test_lines_one_side_lacks_are_said(kernel):
    fc = FORECAST[FORECAST['line'] != 'Rent']
    v = kernel.variance(ACTUAL, BUDGET, kind=KINDS, forecast=fc)
    assert any(n.startswith('vs forecast: ') and 'forecast 0' in n and 'Rent' in n for n in v.attrs['notes'])
    assert line(v, 'Rent')['forecast'] == 0


def test_a_prior_year_without_those_months_is_refused(kernel):
    bad = wide([('Sales', 1.0), ('Travel', 1.0), ('Rent', 1.0)], ['Jan 2024'])
    with pytest.raises(ValueError) as e:
        kernel.variance(ACTUAL, BUDGET, kind=KINDS, prior=bad)
    assert str(e.value).startswith('prior=: ')
