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
_ACCOUNT_SAMPLE = 100_000  # rows the account column is first looked for in
_DEBIT_CREDIT = 'debit - credit'  # the amount column's name when the amounts are debit minus credit

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
        A dask DataFrame is summed by account and member on the cluster.
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
    ddf = bddf = None  # a dask detail (or budget), summed on the cluster once its columns are known
    if reduce_is_dask(detail):
        ddf, d = reduce_member_head(detail, 'detail')
    else:
        d = member_table(detail, 'detail')
    labels = _labels_of(v)
    body = v[[not t for t in _total_rows(v, labels)]]
    acct_note = len(notes)
    acct = _account_column(d, body, labels, account, notes)
    amt_col, amt = _ledger_amounts(d, amount, notes)
    sources = {'detail': (ddf, d, amt, acct, amt_col)}
    scen = _scenario_column(d, acct, notes) if budget is None else None
    if budget is not None:
        if reduce_is_dask(budget):
            bddf, bd = reduce_member_head(budget, 'budget detail')
        else:
            bd = member_table(budget, 'budget detail')
        b_acct = _account_column(bd, body, labels, acct, notes)
        b_col, b_amt = _ledger_amounts(bd, amt_col, notes)
        sources['budget'] = (bddf, bd, b_amt, b_acct, b_col)
    distinct = (lambda cols: reduce_distinct(ddf, d, cols)) if ddf is not None else None
    dims = _dimensions(d, by, {acct, amt_col, scen}, notes, distinct)
    chosen = _chosen_lines(body, labels, lines)
    if budget is None and scen is None and len(chosen):
        notes.append(
            'the detail holds no budget by member: a member\'s part of a line\'s variance is its share of '
            'the line\'s actuals (pass budget= with the budget at the same detail to compare member by '
            'member)'
        )
    ledgers = _explain_ledgers(sources, acct, scen, dims, notes)
    if ddf is not None and account is None:
        # the accounts the whole detail names, not its first rows
        accounts = pd.concat([ledgers[s].accounts for s in (('actual', 'budget') if scen is not None else ('actual',))])
        notes[acct_note] = _account_note(acct, _names_lines(accounts, len(accounts), _line_keys(body, labels)), body)
    sums = _ledger_sums(ledgers, dims)
    rows = []
    for line in chosen.to_dict('records'):
        parts = [str(line[c]) for c in labels if str(line[c]).strip()]
        keys = {fold_text(p) for p in parts} | {fold_text(' '.join(parts))}
        rows += _explain_line(line, ' · '.join(parts), keys, dims, sums, top, notes)
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


class _Ledger:
    """One side of the detail as _LedgerSums takes it: the account and the
    amount of each row (or of each sum of rows), and for each dimension the
    account, the member and the amount of each row (or sum)."""

    def __init__(self, accounts, x, dims):
        self.accounts, self.x, self.dims = accounts, x, dims


def _ledger_rows(frame, amounts, acct, dims):
    """A side's _Ledger from its rows."""
    accounts, x = frame[acct], amounts.to_numpy(dtype=float)
    return _Ledger(accounts, x, {dim: (accounts, frame[dim], x) for dim in dims})


class _LedgerSums:
    """One side of the detail summed once (not once per line, which at a
    million lines and thousands of accounts is the whole cost): by account,
    and by account and member of each dimension, sorted by account then
    member so a line's part is a slice."""

    def __init__(self, led, members, names):
        import numpy as np
        import pandas as pd

        codes, accounts = pd.factorize(led.accounts, use_na_sentinel=False)
        self.by_key = {}
        for i, a in enumerate(accounts):
            self.by_key.setdefault(fold_text(str(a)), []).append(i)
        self.totals = np.bincount(codes, weights=led.x, minlength=len(accounts))
        self.dims = {}
        for dim, (mcodes, stripped) in members.items():
            d_accounts, _, x = led.dims[dim]
            # a dask detail's sums by member have accounts of their own
            d_codes = codes if d_accounts is led.accounts else pd.Index(accounts).get_indexer(d_accounts)
            ids = np.array([names[dim][m] for m in stripped], dtype=np.int64)
            width = max(len(names[dim]), 1)
            key = d_codes.astype(np.int64) * width + (ids[mcodes] if len(ids) else 0)
            ukey, inv = np.unique(key, return_inverse=True)
            self.dims[dim] = (ukey // width, ukey % width, np.bincount(inv.ravel(), weights=x, minlength=len(ukey)))

    def codes(self, keys):
        return sorted(c for k in keys for c in self.by_key.get(k, ()))

    def total(self, codes):
        return float(self.totals[codes].sum()) if codes else 0.0

    def members(self, dim, codes):
        """The members' ids (in name order) and amounts for these accounts."""
        import numpy as np

        acct, member, x = self.dims[dim]
        lo, hi = np.searchsorted(acct, codes, 'left'), np.searchsorted(acct, codes, 'right')
        if len(codes) == 1:  # one account: its slice is one row per member, in order
            return member[lo[0] : hi[0]], x[lo[0] : hi[0]]
        if not codes:
            return np.zeros(0, np.int64), np.zeros(0)
        pick = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)])
        ids, inv = np.unique(member[pick], return_inverse=True)
        return ids, np.bincount(inv.ravel(), weights=x[pick], minlength=len(ids))


def _explain_ledgers(sources, acct, scen, dims, notes):
    """side -> _Ledger: the detail's sides (both, with a scenario column)
    and the budget detail's, a dask one summed on the cluster."""
    out = {}
    for name, (ddf, frame, amounts, a_col, amount) in sources.items():
        side = 'actual' if name == 'detail' else 'budget'
        if ddf is not None:
            words = 'the detail' if name == 'detail' else 'the budget detail'
            out.update(reduce_explain_side(ddf, frame, a_col, amount, scen, dims, side, words, notes))
        elif scen is not None:
            sides = _scenario_sides(frame[scen])
            for s in ('actual', 'budget'):
                out[s] = _ledger_rows(frame[sides == s], amounts[sides == s], acct, dims)
        else:
            out[side] = _ledger_rows(
                frame.rename(columns={a_col: acct}) if a_col != acct else frame, amounts, acct, dims
            )
    return {s: out[s] for s in ('actual', 'budget') if s in out}


def _scenario_sides(col):
    """'actual', 'budget' or None for each value of a scenario column."""
    import pandas as pd

    codes, values = pd.factorize(col, use_na_sentinel=False)
    return pd.Series([scenario_side(x) for x in values], dtype=object).to_numpy()[codes]


def _ledger_sums(ledgers, dims):
    """Each side summed once, the members of a dimension numbered in name
    order across both sides (stripped of spaces, as a person reads them)."""
    import pandas as pd

    members = {side: {} for side in ledgers}
    names = {}
    for dim in dims:
        seen = set()
        for side, led in ledgers.items():
            mcodes, uniq = pd.factorize(led.dims[dim][1], use_na_sentinel=False)
            stripped = [str(m).strip() for m in uniq]
            members[side][dim] = (mcodes, stripped)
            seen.update(stripped)
        names[dim] = {m: i for i, m in enumerate(sorted(seen))}
    sums = {side: _LedgerSums(led, members[side], names) for side, led in ledgers.items()}
    return sums, {dim: sorted(n, key=n.get) for dim, n in names.items()}


def _explain_line(line, name, keys, dims, ledger, top, notes):
    import numpy as np

    sums, names = ledger
    var = float(line['variance'])
    got = {}
    for side, led in sums.items():
        codes = led.codes(keys)
        total, sign = led.total(codes), 1.0
        want = float(line[side])
        if total * want < 0:
            sign, total = -1.0, -total  # a ledger's credits and debits the other way round
            notes.append('%s: the detail\'s %s amounts carry the other sign: taken as they are reported' % (name, side))
        got[side] = (codes, sign)
        missing = want - total
        if abs(missing) >= 0.005:
            notes.append(
                '%s: the detail\'s %s sum to %s, the table\'s to %s: %s is not in the detail (other '
                'periods or accounts?) and is the "Not in the detail" row'
                % (
                    name,
                    'actuals' if side == 'actual' else 'budget',
                    money(total),
                    money(want),
                    money(missing),
                )
            )
    by_member = 'budget' in got
    rows = []
    for dim in dims:
        a_ids, a_x = sums['actual'].members(dim, got['actual'][0])
        a_x = a_x * got['actual'][1]
        if by_member:
            b_ids, b_x = sums['budget'].members(dim, got['budget'][0])
            b_x = b_x * got['budget'][1]
            ids = np.union1d(a_ids, b_ids)  # both sides' members, in name order
            a_m, b_m = np.zeros(len(ids)), np.zeros(len(ids))
            a_m[np.searchsorted(ids, a_ids)] = a_x
            b_m[np.searchsorted(ids, b_ids)] = b_x
            part = a_m - b_m
            basis = 'budget by member'
        else:
            # shares of the line's own actuals: what the detail lacks keeps its share
            ids, a_m, b_m = a_ids, a_x, None
            total = float(line['actual']) if float(line['actual']) else float(a_m.sum())
            part = a_m * var / total if total else a_m * 0.0
            basis = 'share of actuals'
        order = np.argsort(-np.abs(part), kind='stable')
        shown, rest = order[:top], order[top:]
        member_names = names[dim]
        for i in shown:
            rows.append(
                _explain_row(
                    name,
                    dim,
                    member_names[ids[i]],
                    float(a_m[i]),
                    None if b_m is None else float(b_m[i]),
                    float(part[i]),
                    var,
                    basis,
                )
            )
        if len(rest):
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
    keys = _line_keys(body, labels)

    # scored on the first rows (a million-line ledger's columns are read
    # once, not each whole), then on every row when those name no line
    texts = [c for c in d.columns if d[c].dtype.kind not in 'fcmMb']
    best, score = None, 0
    for rows in (_ACCOUNT_SAMPLE, len(d)):
        for c in texts:
            n = _names_lines(d[c], rows, keys)
            if n > score or (n == score and n and fold_text(str(c)) in _ACCOUNT_NAMES):
                best, score = c, n
        if best is not None:
            break
    if best is not None and len(d) > _ACCOUNT_SAMPLE:
        score = _names_lines(d[best], len(d), keys)
    if best is None:
        raise ValueError(
            "the detail has no column naming the table's lines (%s): pass account= with the detail's "
            'account column (its columns: %s)' % (quoted(body[labels[-1]].astype(str)), quoted(d.columns))
        )
    notes.append(_account_note(best, score, body))
    return best


def _line_keys(body, labels):
    """The table's lines as the detail may name them: each label, folded,
    and all of a line's labels together."""
    keys = set()
    for line in body[labels].astype(str).itertuples(index=False):
        parts = [p for p in line if p.strip()]
        keys |= {fold_text(p) for p in parts} | {fold_text(' '.join(parts))}
    return keys


def _names_lines(col, rows, keys):
    """How many of the lines' keys the column's first rows name."""
    import pandas as pd

    return len({fold_text(str(x)) for x in pd.unique(col.iloc[:rows])[:20000]} & keys)


def _account_note(col, score, body):
    return "the detail's accounts are the column %r: it names %d of the table's %d lines" % (
        col,
        min(score, len(body)),
        len(body),
    )


def _ledger_amounts(d, given, notes):
    """The detail's amount column and its values: given, one named so, or
    debit minus credit."""
    c = find_column(d, given, _LEDGER_AMOUNTS, 'amounts', 'the detail', notes)
    if c is not None:
        return c, _ledger_values(d, c)
    folded = {fold_text(str(x)): x for x in d.columns}
    if 'debit' in folded and 'credit' in folded:
        notes.append(
            'the detail: amounts are debit minus credit (the columns %r and %r)' % (folded['debit'], folded['credit'])
        )
        return _DEBIT_CREDIT, _ledger_values(d, _DEBIT_CREDIT)
    raise ValueError(
        'the detail has no amount column found by its name (amount, value, debit and credit…) among '
        '%s: pass amount=' % quoted(d.columns)
    )


def _ledger_values(d, c):
    """Each row's amount: the column c, or debit minus credit."""
    if c != _DEBIT_CREDIT or c in d.columns:
        return amounts_of(d, c).fillna(0.0)
    folded = {fold_text(str(x)): x for x in d.columns}
    return amounts_of(d, folded['debit']).fillna(0.0) - amounts_of(d, folded['credit']).fillna(0.0)


def _scenario_column(d, acct, notes):
    """A column whose values say actual and budget: both sides in one detail."""
    import pandas as pd

    for c in d.columns:
        if c == acct or d[c].dtype.kind in 'biufcmM':
            continue
        vals = {scenario_side(x) for x in pd.unique(d[c])[:21] if isinstance(x, str)}
        if vals == {'actual', 'budget'}:
            notes.append('the detail holds both sides: the column %r says actual or budget' % (c,))
            return c
    return None


def _dimensions(d, by, skip, notes, distinct=None):
    """The dimensions: by=, or the text columns with a few distinct values;
    distinct(columns) -> {column: (distinct values, rows)} counts them where
    d is only a dask detail's first rows."""
    if by is not None:
        by = [by] if isinstance(by, str) else list(by)
        if not by or not all(isinstance(b, str) for b in by):
            raise TypeError('by= names the dimension column(s) of the detail (vendor, department…)')
        return [find_column(d, b, (), 'dimension', 'the detail', notes, numeric=False) for b in by]
    cands = [
        c
        for c in d.columns
        if c not in skip and d[c].dtype.kind not in 'biufcmM' and fold_text(str(c)) not in _NOT_DIMENSIONS
    ]
    counts = distinct(cands) if distinct is not None and cands else {}
    dims = []
    for c in cands:
        n, rows = counts[c] if c in counts else (d[c].nunique(dropna=True), len(d))
        if 2 <= n <= EXPLAIN_MAX_MEMBERS and n < max(3, 0.9 * rows) and _numeric_share(d, c) < 0.5:
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
