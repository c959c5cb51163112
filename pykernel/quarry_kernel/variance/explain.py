# explain() for quarry's kernel (after pvm.py): a variance table's material
# lines drilled down to the ledger. Each line's variance is attributed to
# the members of a dimension of the detail (vendor, department, customer)
# that drove it, largest first; the rest is one 'Other' row and what the
# detail does not hold one 'Not in the detail' row, so a line's rows add up
# to its variance to the cent. The budget by member, where there is one,
# makes a member's part its own actual minus its own budget; without one a
# member's part is its share of the line's actuals, and the note says so.

EXPLAIN_COLUMNS = ('line', 'dimension', 'member', 'actual', 'budget', 'variance', 'share', 'basis')
EXPLAIN_MAX_MEMBERS = 500  # more distinct values: an id or a memo, not a dimension

_ACCOUNT_NAMES = (
    'account',
    'account name',
    'gl account',
    'account code',
    'account number',
    'gl',
    'line',
    'category',
    'cost center account',
    'konto',
    'compte',
)
_LEDGER_AMOUNTS = (
    'amount',
    'net amount',
    'value',
    'net',
    'amount (usd)',
    'amount usd',
    'total',
    'balance',
    'betrag',
    'montant',
    'sum',
)
_NOT_DIMENSIONS = (
    'memo',
    'description',
    'reference',
    'ref',
    'id',
    'number',
    'no',
    'invoice',
    'document',
    'doc',
    'journal',
    'entry',
    'line',
    'comment',
    'notes',
    'text',
    'date',
    'period',
    'month',
    'posting date',
    'transaction',
    'transaction id',
    'voucher',
)
_SIDE_WORDS = {
    'actual': 'actual',
    'actuals': 'actual',
    'act': 'actual',
    'ist': 'actual',
    'budget': 'budget',
    'bud': 'budget',
    'plan': 'budget',
    'soll': 'budget',
}


def explain(v, detail, by=None, top=5, budget=None, lines=None, account=None, amount=None):
    """Attribute each material line's variance to the detail's members that drove it.

    Parameters
    ----------
    v : DataFrame
        The table variance() returned.
    detail : DataFrame or str
        Transaction-level actuals (a general-ledger or sales-line export:
        an account column, an amount column and dimensions such as vendor,
        department, customer, product), as a DataFrame or an attached file.
        A scenario column whose values say actual and budget holds both sides.
    by : str or list of str, optional
        The dimension(s) to attribute over; by default every text column
        of the detail with a few distinct values (not ids, memos or dates).
    top : int
        Members shown per line and dimension; the rest are one 'Other' row.
    budget : DataFrame or str, optional
        The budget at the same detail (same account and dimension columns):
        a member's part is then its actual minus its budget.
    lines : str or list of str, optional
        The lines to explain (their labels); by default the material ones.
    account, amount : str, optional
        The detail's account and amount columns, when their names do not say so.

    Returns
    -------
    DataFrame
        Columns line, dimension, member, actual, budget (NaN without a
        budget by member), variance (the member's part of the line's
        variance), share (of the line's variance) and basis ('budget by
        member' or 'share of actuals'). Each line's rows for one dimension
        add up to its variance to the cent: the members shown, an 'Other (n
        members)' row, and a 'Not in the detail' row for what the detail
        does not hold. attrs: notes (what was inferred, how much is not in
        the detail), account, amount, dimensions.
    """
    import pandas as pd

    if not isinstance(v, pd.DataFrame) or not set(VARIANCE_COLUMNS) <= set(v.columns):
        raise TypeError('explain() takes the table variance() returns as its first argument')
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise ValueError('top= is the number of members shown per line, 1 or more (got %r)' % (top,))
    notes = []
    d = member_table(detail, 'detail')
    labels = _labels_of(v)
    body = v[[not t for t in _total_rows(v, labels)]]
    acct = _account_column(d, body, labels, account, notes)
    amt_col, amt = _ledger_amounts(d, amount, notes)
    sides = {'actual': (d, amt)}
    scen = _scenario_column(d, acct, notes) if budget is None else None
    if scen is not None:
        side = d[scen].map(lambda x: _SIDE_WORDS.get(fold_text(str(x))))
        sides = {
            'actual': (d[side == 'actual'], amt[side == 'actual']),
            'budget': (d[side == 'budget'], amt[side == 'budget']),
        }
    elif budget is not None:
        bd = member_table(budget, 'budget detail')
        b_acct = _account_column(bd, body, labels, acct, notes)
        _, b_amt = _ledger_amounts(bd, amt_col, notes)
        sides['budget'] = (bd.rename(columns={b_acct: acct}), b_amt)
    dims = _dimensions(d, by, {acct, amt_col, scen}, notes)
    chosen = _chosen_lines(body, labels, lines)
    if 'budget' not in sides and len(chosen):
        notes.append(
            'the detail holds no budget by member: a member\'s part of a line\'s variance is its share of '
            'the line\'s actuals (pass budget= with the budget at the same detail to compare member by '
            'member)'
        )
    rows = []
    for i in chosen.index:
        line = chosen.loc[i]
        name = ' · '.join(str(line[c]) for c in labels if str(line[c]).strip())
        keys = {fold_text(str(line[c])) for c in labels if str(line[c]).strip()} | {fold_text(name.replace(' · ', ' '))}
        rows += _explain_line(line, name, keys, acct, dims, sides, top, notes)
    out = pd.DataFrame(rows, columns=list(EXPLAIN_COLUMNS))
    out.attrs.update(
        {'notes': notes, 'account': str(acct), 'amount': str(amt_col), 'dimensions': [str(x) for x in dims]}
    )
    _print_explain_notes(notes)
    return out


def _chosen_lines(body, labels, lines):
    import numpy as np

    if lines is None:
        chosen = body[body['material'].astype(bool) & (body['variance'] != 0)]
    else:
        want = [lines] if isinstance(lines, str) else list(lines)
        folded = {fold_text(str(x)) for x in want}
        hit = body[labels].astype(str).apply(lambda col: col.map(fold_text)).isin(folded).any(axis=1)
        chosen = body[hit]
        if len(chosen) == 0:
            raise ValueError(
                'lines=%r: no line of the table has that label (its lines: %s)'
                % (lines, quoted(body[labels[-1]].astype(str)))
            )
    return chosen.iloc[np.argsort(-chosen['variance'].abs().to_numpy(), kind='stable')]


def _explain_line(line, name, keys, acct, dims, sides, top, notes):
    import numpy as np

    var = float(line['variance'])
    got = {}
    for side, (frame, amounts) in sides.items():
        hit = frame[acct].astype(str).map(fold_text).isin(keys)
        vals = amounts[hit]
        want = float(line[side])
        if vals.sum() * want < 0:
            vals = -vals  # a ledger's credits and debits the other way round
            notes.append('%s: the detail\'s %s amounts carry the other sign: taken as they are reported' % (name, side))
        got[side] = (frame[hit], vals)
        missing = want - float(vals.sum())
        if abs(missing) >= 0.005:
            notes.append(
                '%s: the detail\'s %s sum to %s, the table\'s to %s: %s is not in the detail (other '
                'periods or accounts?) and is the "Not in the detail" row'
                % (
                    name,
                    'actuals' if side == 'actual' else 'budget',
                    money(float(vals.sum())),
                    money(want),
                    money(missing),
                )
            )
    by_member = 'budget' in got
    rows = []
    for dim in dims:
        a_frame, a_vals = got['actual']
        a_m = a_vals.groupby(a_frame[dim].astype(str).str.strip().to_numpy()).sum()
        if by_member:
            b_frame, b_vals = got['budget']
            b_m = b_vals.groupby(b_frame[dim].astype(str).str.strip().to_numpy()).sum()
            members = a_m.index.union(b_m.index, sort=False)
            a_m, b_m = a_m.reindex(members, fill_value=0.0), b_m.reindex(members, fill_value=0.0)
            part = a_m - b_m
            basis = 'budget by member'
        else:
            # shares of the line's own actuals: what the detail lacks keeps its share
            total = float(line['actual']) if float(line['actual']) else float(a_m.sum())
            b_m = None
            part = a_m * var / total if total else a_m * 0.0
            basis = 'share of actuals'
        order = part.index[np.argsort(-part.abs().to_numpy(), kind='stable')]
        shown, rest = list(order[:top]), list(order[top:])
        for m in shown:
            rows.append(
                _explain_row(
                    name, dim, m, float(a_m[m]), None if b_m is None else float(b_m[m]), float(part[m]), var, basis
                )
            )
        if rest:
            rows.append(
                _explain_row(
                    name,
                    dim,
                    'Other (%d members)' % len(rest),
                    float(a_m[rest].sum()),
                    None if b_m is None else float(b_m[rest].sum()),
                    float(part[rest].sum()),
                    var,
                    basis,
                )
            )
        left = round(var - sum(r['variance'] for r in rows if r['dimension'] == dim), 9)
        if abs(left) >= 0.005:
            rows.append(_explain_row(name, dim, 'Not in the detail', np.nan, np.nan, left, var, basis))
    return rows


def _explain_row(line, dim, member, actual, budget, part, var, basis):
    import numpy as np

    return {
        'line': line,
        'dimension': str(dim),
        'member': str(member),
        'actual': actual,
        'budget': np.nan if budget is None else budget,
        'variance': round(part, 9),
        'share': part / var if var else np.nan,
        'basis': basis,
    }


def _account_column(d, body, labels, given, notes):
    """The detail's column naming the table's lines: given, or the text
    column whose values name the most of them."""
    if given is not None:
        c = find_column(d, given, (), 'accounts', 'the detail', notes, numeric=False)
        return c
    keys = set()
    for _, line in body.iterrows():
        parts = [str(line[c]) for c in labels if str(line[c]).strip()]
        keys |= {fold_text(p) for p in parts} | {fold_text(' '.join(parts))}
    best, score = None, 0
    for c in d.columns:
        vals = set(d[c].astype(str).map(fold_text).unique()[:5000])
        n = len(vals & keys)
        if n > score or (n == score and n and fold_text(str(c)) in _ACCOUNT_NAMES):
            best, score = c, n
    if best is None:
        raise ValueError(
            "the detail has no column naming the table's lines (%s): pass account= with the detail's "
            'account column (its columns: %s)' % (quoted(body[labels[-1]].astype(str)), quoted(d.columns))
        )
    notes.append(
        'the detail\'s accounts are the column %r: it names %d of the table\'s %d lines'
        % (best, min(score, len(body)), len(body))
    )
    return best


def _ledger_amounts(d, given, notes):
    """The detail's amount column and its values: given, one named so, or
    debit minus credit."""
    c = find_column(d, given, _LEDGER_AMOUNTS, 'amounts', 'the detail', notes)
    if c is not None:
        return c, amounts_of(d, c).fillna(0.0)
    folded = {fold_text(str(x)): x for x in d.columns}
    if 'debit' in folded and 'credit' in folded:
        notes.append(
            'the detail: amounts are debit minus credit (the columns %r and %r)' % (folded['debit'], folded['credit'])
        )
        return 'debit - credit', (
            amounts_of(d, folded['debit']).fillna(0.0) - amounts_of(d, folded['credit']).fillna(0.0)
        )
    raise ValueError(
        'the detail has no amount column found by its name (amount, value, debit and credit…) among '
        '%s: pass amount=' % quoted(d.columns)
    )


def _scenario_column(d, acct, notes):
    """A column whose values say actual and budget: both sides in one detail."""
    for c in d.columns:
        if c == acct or d[c].dtype.kind in 'biufcmM':
            continue
        vals = {_SIDE_WORDS.get(fold_text(str(x))) for x in d[c].dropna().unique()[:20]}
        if vals == {'actual', 'budget'}:
            notes.append('the detail holds both sides: the column %r says actual or budget' % (c,))
            return c
    return None


def _dimensions(d, by, skip, notes):
    if by is not None:
        by = [by] if isinstance(by, str) else list(by)
        if not by or not all(isinstance(b, str) for b in by):
            raise TypeError('by= names the dimension column(s) of the detail (vendor, department…)')
        return [find_column(d, b, (), 'dimension', 'the detail', notes, numeric=False) for b in by]
    dims = []
    for c in d.columns:
        if c in skip or d[c].dtype.kind in 'biufcmM' or fold_text(str(c)) in _NOT_DIMENSIONS:
            continue
        n = d[c].nunique(dropna=True)
        if 2 <= n <= EXPLAIN_MAX_MEMBERS and n < max(3, 0.9 * len(d)) and _numeric_share(d, c) < 0.5:
            dims.append(c)
    if not dims:
        raise ValueError(
            'the detail has no dimension to attribute over (a text column with a few distinct values: '
            'vendor, department…): pass by= (its columns: %s)' % quoted(d.columns)
        )
    notes.append('the dimensions: %s (pass by= for others)' % quoted(dims))
    return dims


def _print_explain_notes(notes):
    import sys

    print('explain() notes:\n' + '\n'.join('- ' + n for n in notes[:NOTES_PRINTED]), file=sys.stderr)
