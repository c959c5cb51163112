"""explain(): a material line's variance attributed to the ledger's members, to the cent."""

import pandas as pd
import pytest

ACTUAL = pd.DataFrame(
    {'Account': ['Revenue', 'Travel', 'Software', 'Rent'], 'Amount': [100000.0, 18000.0, 9000.0, 5000.0]}
)
BUDGET = pd.DataFrame(
    {'Account': ['Revenue', 'Travel', 'Software', 'Rent'], 'Amount': [100000.0, 12000.0, 9500.0, 5000.0]}
)

LEDGER = pd.DataFrame(
    {
        'Date': ['2026-04-03', '2026-04-19', '2026-05-02', '2026-05-20', '2026-06-11', '2026-06-12', '2026-04-30'],
        'Account': ['Travel', 'Travel', 'Travel', 'Travel', 'Travel', 'Software', 'Software'],
        'Vendor': ['Delta', 'Hilton', 'Delta', 'Uber', 'Hilton', 'Atlassian', 'Slack'],
        'Department': ['Sales', 'Sales', 'Eng', 'Sales', 'Eng', 'Eng', 'Eng'],
        'Memo': ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
        'Amount': [6000.0, 4000.0, 3000.0, 1000.0, 4000.0, 6000.0, 3000.0],
    }
)


@pytest.fixture
def v(kernel):
    return kernel.variance(
        ACTUAL, BUDGET, kind={'Revenue': 'revenue', 'Travel': 'cost', 'Software': 'cost', 'Rent': 'cost'}
    )


def block(out, line, dim):
    return out[(out['line'] == line) & (out['dimension'] == dim)]


def test_rows_add_up_to_each_lines_variance(kernel, v):
    out = kernel.explain(v, LEDGER, top=2)
    travel = v[v['Account'] == 'Travel'].iloc[0]
    for dim in ('Vendor', 'Department'):
        rows = block(out, 'Travel', dim)
        assert rows['variance'].sum() == pytest.approx(float(travel['variance']), abs=0.005)
    assert set(out['dimension']) == {'Vendor', 'Department'}  # not the memo, the date or the account


def test_share_of_actuals_without_a_budget_by_member(kernel, v):
    out = kernel.explain(v, LEDGER, by='Vendor')
    rows = block(out, 'Travel', 'Vendor').set_index('member')
    # Delta holds 9,000 of Travel's 18,000 actuals: half of its 6,000 variance
    assert rows.loc['Delta', 'variance'] == pytest.approx(3000.0)
    assert rows.loc['Delta', 'share'] == pytest.approx(0.5)
    assert set(rows['basis']) == {'share of actuals'}
    assert any('no budget by member' in n for n in out.attrs['notes'])


def test_budget_by_member_compares_member_by_member(kernel, v):
    budget = pd.DataFrame(
        {
            'Account': ['Travel', 'Travel', 'Travel', 'Software', 'Software'],
            'Vendor': ['Delta', 'Hilton', 'Uber', 'Atlassian', 'Slack'],
            'Amount': [5000.0, 6000.0, 1000.0, 6500.0, 3000.0],
        }
    )
    out = kernel.explain(v, LEDGER, by='Vendor', budget=budget)
    rows = block(out, 'Travel', 'Vendor').set_index('member')
    assert rows.loc['Delta', 'variance'] == pytest.approx(9000.0 - 5000.0)
    assert rows.loc['Hilton', 'variance'] == pytest.approx(8000.0 - 6000.0)
    assert rows.index[0] == 'Delta'  # largest first
    assert set(rows['basis']) == {'budget by member'}


def test_what_the_detail_lacks_is_its_own_row(kernel, v):
    partial = LEDGER[LEDGER['Vendor'] != 'Uber']
    out = kernel.explain(v, partial, by='Vendor', lines='Travel')
    rows = block(out, 'Travel', 'Vendor').set_index('member')
    assert rows['variance'].sum() == pytest.approx(6000.0, abs=0.005)
    # Uber's 1,000 of Travel's 18,000 actuals is not in this detail: its share of the variance
    assert rows.loc['Not in the detail', 'variance'] == pytest.approx(6000.0 * 1000 / 18000)
    assert any('not in the detail' in n for n in out.attrs['notes'])


def test_other_holds_the_rest(kernel, v):
    out = kernel.explain(v, LEDGER, by='Vendor', top=1, lines=['Travel'])
    rows = block(out, 'Travel', 'Vendor')
    assert list(rows['member']) == ['Delta', 'Other (2 members)']
    assert rows['variance'].sum() == pytest.approx(6000.0)


@pytest.mark.parametrize('words', [('Actual', 'Budget'), ('Ist', 'Plan'), ('ACTUALS', 'Budget 2026')])
def test_both_sides_in_one_detail_and_credits(kernel, v, words):
    both = pd.DataFrame(
        {
            'GL Account': ['Travel'] * 4,
            'Scenario': [words[0], words[0], words[1], words[1]],
            'Vendor': ['Delta', 'Hilton', 'Delta', 'Hilton'],
            'Debit': [10000.0, 8000.0, 7000.0, 5000.0],
            'Credit': [0.0, 0.0, 0.0, 0.0],
        }
    )
    out = kernel.explain(v, both, by='Vendor', lines='Travel')
    rows = block(out, 'Travel', 'Vendor').set_index('member')
    assert rows.loc['Delta', 'variance'] == pytest.approx(3000.0)
    assert rows.loc['Hilton', 'variance'] == pytest.approx(3000.0)
    notes = ' '.join(out.attrs['notes'])
    assert "'Scenario'" in notes and 'debit minus credit' in notes and "'GL Account'" in notes


@pytest.mark.parametrize(
    'call, error',
    [
        (lambda k, v: k.explain(ACTUAL, LEDGER), 'the table variance() returns'),
        (lambda k, v: k.explain(v, LEDGER, top=0), 'top= is the number'),
        (lambda k, v: k.explain(v, LEDGER, lines='Marketing'), "no line of the table has that label"),
        (lambda k, v: k.explain(v, LEDGER.drop(columns='Amount')), 'pass amount='),
        (lambda k, v: k.explain(v, LEDGER, by='Region'), "no column 'Region'"),
    ],
)
def test_bad_calls_say_what_to_do(kernel, v, call, error):
    with pytest.raises((ValueError, KeyError, TypeError)) as e:
        call(kernel, v)
    assert error in str(e.value)


def test_refunds_and_reversals_net_out_member_by_member(kernel, v):
    # Travel's 18,000: Delta 10,000 after a 1,000 refund, Hilton 8,000, and
    # an Uber charge of 2,500 posted and reversed; the budget by member
    # plants the driver: Delta 4,000 over, Hilton 2,000 over, Uber nothing
    ledger = pd.DataFrame(
        {
            'Account': ['Travel'] * 6,
            'Vendor': ['Delta', 'Delta', 'Hilton', 'Uber', 'Uber', 'Hilton'],
            'Memo': ['flights', 'refund', 'hotel', 'rides', 'reversal', 'hotel'],
            'Amount': [11000.0, -1000.0, 5000.0, 2500.0, -2500.0, 3000.0],
        }
    )
    budget = pd.DataFrame(
        {'Account': ['Travel'] * 3, 'Vendor': ['Delta', 'Hilton', 'Uber'], 'Amount': [6000.0, 6000.0, 0.0]}
    )
    out = kernel.explain(v, ledger, budget=budget, by='Vendor', lines='Travel')
    rows = block(out, 'Travel', 'Vendor').set_index('member')
    assert rows.loc['Delta', 'variance'] == pytest.approx(4000.0)
    assert rows.loc['Hilton', 'variance'] == pytest.approx(2000.0)
    assert rows.loc['Uber', 'variance'] == pytest.approx(0.0)
    assert list(rows.index[:2]) == ['Delta', 'Hilton']
    assert rows['variance'].sum() == pytest.approx(6000.0)
