# Constant currency for variance() (after compare.py): amounts kept in
# several currencies are converted with a table of rates, the actuals at
# the actual rate and the budget at the budget rate, and the variance is
# split into the constant-currency variance (the actuals at the budget's
# rates against the budget) and the FX effect (what the rates' move
# alone did), which add up to the reported variance on every line. Amounts
# in several currencies are never summed unconverted.

_CURRENCY_NAMES = ('currency', 'ccy', 'curr', 'cur', 'currency code', 'waehrung', 'währung', 'devise', 'moneda')
_RATE_NAMES = ('rate', 'fx rate', 'exchange rate', 'kurs', 'taux')
_NOT_AMOUNTS = ('account', 'code', 'account code', 'account number', 'year', 'month', 'quarter', 'period', 'id')


def currency_column(frame, given, role):
    """The column holding each row's currency: given, or found by its name."""
    if given is not None:
        return find_column(frame, given, (), 'currencies', role, [], numeric=False)
    for c in frame.columns:
        if fold_text(str(c)) in _CURRENCY_NAMES:
            return c
    return None


def check_layout_currency(lay, currency):
    """Refuses a file (or frame) whose currency column holds several
    currencies: its amounts would be summed as they are."""
    for c in lay.columns:
        if not (fold_text(c.text) in _CURRENCY_NAMES or (currency is not None and c.text == currency)):
            continue
        col = lay.body.iloc[:, c.pos].dropna().astype(str).str.strip()
        found = sorted(set(col.unique()) - {''})
        if len(found) > 1:
            raise ValueError(
                '%s hold amounts in %d currencies (%s) in the column %r: they cannot be summed as they are; pass '
                'rates= (a table of currency, rate and actual or budget, or actual_rate and budget_rate) to '
                'convert them' % (lay.inp.name, len(found), ', '.join(found[:12]), c.text)
            )


def _rates_table(rates):
    """rates as {currency: (actual rate, budget rate)}, with what was read."""

    if isinstance(rates, dict):
        out = {}
        for k, r in rates.items():
            if isinstance(r, (tuple, list)) and len(r) == 2:
                out[str(k).strip().upper()] = (float(r[0]), float(r[1]))
            else:
                raise ValueError(
                    "rates= as a dict maps a currency to (actual rate, budget rate), e.g. {'EUR': (1.08, 1.10)}"
                )
        return out, 'the rates given'
    frame = member_table(rates, 'rates')
    notes = []
    cur = currency_column(frame, None, 'the rates')
    if cur is None:
        raise ValueError('the rates have no currency column (the columns: %s)' % quoted(frame.columns))
    folded = {fold_text(str(c)): c for c in frame.columns}
    a_col = next((folded[k] for k in ('actual rate', 'actual_rate', 'actual') if k in folded), None)
    b_col = next(
        (folded[k] for k in ('budget rate', 'budget_rate', 'budget', 'plan rate', 'plan') if k in folded), None
    )
    out = {}
    if a_col is not None and b_col is not None:
        a_vals, b_vals = amounts_of(frame, a_col), amounts_of(frame, b_col)
        for i in range(len(frame)):
            out[str(frame[cur].iloc[i]).strip().upper()] = (float(a_vals.iloc[i]), float(b_vals.iloc[i]))
        return out, 'the columns %r and %r' % (a_col, b_col)
    rate = find_column(frame, None, _RATE_NAMES, 'rates', 'the rates', notes)
    side = next(
        (
            c
            for c in frame.columns
            if c not in (cur, rate)
            and frame[c].dtype.kind not in 'biufcmM'
            and {scenario_side(v) for v in frame[c].dropna().unique()} == {'actual', 'budget'}
        ),
        None,
    )
    if rate is None or side is None:
        raise ValueError(
            'the rates need a currency, and either an actual and a budget rate column, or a rate column with a '
            'column saying actual or budget (the columns: %s)' % quoted(frame.columns)
        )
    vals = amounts_of(frame, rate)
    got = {}
    for i in range(len(frame)):
        k = str(frame[cur].iloc[i]).strip().upper()
        got.setdefault(k, {})[scenario_side(frame[side].iloc[i])] = float(vals.iloc[i])
    for k, sides in got.items():
        if set(sides) != {'actual', 'budget'}:
            raise ValueError('the rates give %s no %s rate' % (k, 'budget' if 'actual' in sides else 'actual'))
        out[k] = (sides['actual'], sides['budget'])
    return out, 'the column %r, by %r' % (rate, side)


def fx_inputs(actual, budget, rates, value, currency, notes):
    """The actuals at the actual rates, the actuals at the budget's rates and
    the budget at the budget's rates, as DataFrames without the currency."""

    if budget is None:
        raise ValueError('rates= needs the budget as its own file or DataFrame (budget=)')
    table, how = _rates_table(rates)
    bad = [k for k, (a, b) in table.items() if not (a == a and b == b and a > 0 and b > 0)]
    if bad:
        raise ValueError('the rates for %s are not positive numbers' % ', '.join(bad))
    frames = {}
    for role, x in (('actuals', actual), ('budget', budget)):
        f = member_table(x, role)
        c = currency_column(f, currency, 'the ' + role)
        if c is None:
            raise ValueError(
                'the %s have no currency column (currency, ccy…): pass currency= (the columns: %s)'
                % (role, quoted(f.columns))
            )
        codes = f[c].astype(str).str.strip().str.upper()
        missing = sorted(set(codes.unique()) - set(table))
        if missing:
            raise ValueError('the rates have no rate for %s, which the %s hold' % (', '.join(missing[:12]), role))
        amount_cols = (
            [value]
            if value is not None
            else [
                k
                for k in f.columns
                if k != c
                and f[k].dtype.kind in 'biuf'
                or (k != c and f[k].dtype == object and amounts_of(f, k).notna().mean() > 0.8)
            ]
        )
        amount_cols = [k for k in amount_cols if fold_text(str(k)) not in _NOT_AMOUNTS]
        frames[role] = (f, c, codes, amount_cols, x)
    out = {}
    for key, role, which in (('actual', 'actuals', 0), ('actual_cc', 'actuals', 1), ('budget', 'budget', 1)):
        f, c, codes, cols, x = frames[role]
        conv = f.drop(columns=[c]).copy()
        factor = codes.map(lambda k, w=which: table[k][w]).astype(float)
        for k in cols:
            conv[k] = amounts_of(f, k) * factor.to_numpy()
        out[key] = Reduced(conv, x.rows, x.note) if isinstance(x, Reduced) else conv  # a dask frame's sums stay so
    cur = sorted(set(frames['actuals'][2]) | set(frames['budget'][2]))
    notes.append(
        'in constant currency: %s converted with %s (the actuals at the actual rate, the budget at the '
        'budget rate; the constant-currency variance puts the actuals at the budget rate)' % (', '.join(cur), how)
    )
    return out, cur, table


def add_fx(out, cc, cur, table):
    """Adds the constant-currency variance and the FX effect to out."""
    import numpy as np

    labels = _labels_of(out)
    total_o, total_c = _total_rows(out, labels), _total_rows(cc, labels)
    theirs = {('Total' if total_c[i] else tuple(str(cc[c].iloc[i]) for c in labels)): i for i in range(len(cc))}
    var_cc = []
    for i in range(len(out)):
        key = 'Total' if total_o[i] else tuple(str(out[c].iloc[i]) for c in labels)
        j = theirs.get(key)
        var_cc.append(float(cc['variance'].iloc[j]) if j is not None else np.nan)
    out['variance_cc'] = var_cc
    out['fx_effect'] = (out['variance'] - out['variance_cc']).round(9)
    out.attrs['fx'] = {'currencies': cur, 'rates': {k: {'actual': a, 'budget': b} for k, (a, b) in table.items()}}
