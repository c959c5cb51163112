# pvm() for quarry's kernel (after bridge.py): a revenue (or cost) variance
# split into price, volume and mix by the standard FP&A decomposition, over
# the members both sides have, with a member on one side only its own
# new/lost effect. Every split reconciles exactly to the variance: the
# three effects of a member add up to its actual minus its budget, and the
# Total row to the whole variance (docs/usage.md, "Price, volume and mix").

PVM_COLUMNS = (
    'status',
    'actual_units',
    'budget_units',
    'actual_price',
    'budget_price',
    'actual',
    'budget',
    'variance',
    'price',
    'volume',
    'mix',
    'new_lost',
    'effect',
)
PVM_METHOD = (
    'over the members both sides have (continuing): price = (AP - BP) * AU; '
    'volume = (AU_total - BU_total) * BMix * BP; mix = (AMix - BMix) * AU_total * BP, '
    'where AU, BU are a member\'s units, AP, BP its price (amount / units), '
    'AMix, BMix its share of the continuing units and AU_total, BU_total those units summed; '
    'a member on one side only is new (its actual) or lost (minus its budget)'
)

_UNIT_NAMES = (
    'units',
    'unit',
    'qty',
    'quantity',
    'volume',
    'volumes',
    'count',
    'cases',
    'pieces',
    'pcs',
    'tons',
    'tonnes',
    'kg',
    'hours',
    'seats',
    'users',
    'orders',
)
_AMOUNT_NAMES = (
    'revenue',
    'revenues',
    'sales',
    'net sales',
    'amount',
    'value',
    'net revenue',
    'turnover',
    'cost',
    'costs',
    'spend',
    'total',
)
_PRICE_NAMES = ('price', 'unit price', 'avg price', 'average price', 'asp', 'rate', 'price per unit', 'unit cost')


def pvm(actual, budget, by, units=None, price=None, revenue=None, kind='revenue'):
    """Split a revenue (or cost) variance into price, volume and mix effects.

    Parameters
    ----------
    actual, budget : DataFrame or str
        The two sides at member level (a sales-line export is summed by
        member), as DataFrames (pandas, or dask: summed by member on the
        cluster) or attached file paths.
    by : str or list of str
        The column(s) naming the members: product, SKU, customer.
    units : str, optional
        The units column; found by its name (units, qty, volume…) when left out.
    price : str, optional
        The unit price column; the amount is then units * price per row.
    revenue : str, optional
        The amount column (revenue or cost); found by its name when neither
        price nor revenue is given. A member's price is amount / units.
    kind : {'revenue', 'cost'}
        Whether a higher actual is better (revenue) or worse (cost).

    Returns
    -------
    DataFrame
        One row per member, largest variance first, then a 'Total' row:
        the by columns, status ('continuing', 'new', 'lost'), actual_units,
        budget_units, actual_price, budget_price, actual, budget, variance
        (actual - budget), price, volume, mix, new_lost and effect ('better',
        'worse', 'on budget'). price + volume + mix + new_lost equals
        variance on every row. attrs: notes (what was inferred), method (the
        formulas), kind, by, units, amount.

    Notes
    -----
    Over the members both sides have: price = (AP - BP) * AU; volume =
    (AU_total - BU_total) * BMix * BP; mix = (AMix - BMix) * AU_total * BP.
    A member with units on one side only is new (new_lost = its actual) or
    lost (new_lost = minus its budget): no division by zero.
    """
    import numpy as np
    import pandas as pd

    by = _pvm_by(by)
    if kind not in ('revenue', 'cost'):
        raise ValueError("kind= is 'revenue' or 'cost' (got %r)" % (kind,))
    notes = []
    sides = {}
    for side, x in (('actual', actual), ('budget', budget)):
        if reduce_is_dask(x):
            sides[side] = reduce_pvm_side(x, side, by, units, price, revenue, notes)
            continue
        frame = member_table(x, 'actuals' if side == 'actual' else 'budget')
        sides[side] = _pvm_side(frame, side, by, units, price, revenue, notes)
    a, b = sides['actual'], sides['budget']
    keys = a.index.union(b.index, sort=False)
    a, b = a.reindex(keys), b.reindex(keys)
    au, bu = a['units'].fillna(0.0), b['units'].fillna(0.0)
    ar, br = a['amount'].fillna(0.0), b['amount'].fillna(0.0)
    both = (au != 0) & (bu != 0)
    ap = (ar / au).where(au != 0)
    bp = (br / bu).where(bu != 0)
    au_t, bu_t = float(au[both].sum()), float(bu[both].sum())
    if both.any() and (au_t == 0 or bu_t == 0):
        raise ValueError(
            'the units of the members both sides have sum to 0 on the %s side, so their mix '
            'has no meaning: check the units column' % ('actual' if au_t == 0 else 'budget')
        )
    zero = pd.Series(0.0, index=keys)
    price_e, volume_e, mix_e = zero.copy(), zero.copy(), zero.copy()
    if both.any():
        bmix = bu[both] / bu_t
        amix = au[both] / au_t
        price_e[both] = (ap[both] - bp[both]) * au[both]
        volume_e[both] = (au_t - bu_t) * bmix * bp[both]
        mix_e[both] = (amix - bmix) * au_t * bp[both]
    var = ar - br
    new_lost = (var - price_e - volume_e - mix_e).where(~both, 0.0)
    status = pd.Series(
        np.where(both, 'continuing', np.where(au != 0, 'new', np.where(bu != 0, 'lost', 'no units'))), index=keys
    )
    for what in ('new', 'lost', 'no units'):
        names = [_member_text(k) for k in keys[status == what]]
        if names:
            words = {
                'new': 'only in the actuals (new): new_lost holds its actual',
                'lost': 'only in the budget (lost): new_lost holds minus its budget',
                'no units': 'without units on either side: new_lost holds its variance',
            }[what]
            notes.append('%d member%s %s: %s' % (len(names), '' if len(names) == 1 else 's', words, quoted(names)))
    out = pd.DataFrame(
        {
            'status': status,
            'actual_units': au,
            'budget_units': bu,
            'actual_price': ap,
            'budget_price': bp,
            'actual': ar,
            'budget': br,
            'variance': var,
            'price': price_e,
            'volume': volume_e,
            'mix': mix_e,
            'new_lost': new_lost,
        }
    )
    out = out.iloc[np.argsort(-out['variance'].abs().to_numpy(), kind='stable')]
    total = {
        c: float(out[c].sum())
        for c in ('actual_units', 'budget_units', 'actual', 'budget', 'variance', 'price', 'volume', 'mix', 'new_lost')
    }
    total.update(
        status='',
        actual_price=total['actual'] / total['actual_units'] if total['actual_units'] else np.nan,
        budget_price=total['budget'] / total['budget_units'] if total['budget_units'] else np.nan,
    )
    out = out.reset_index()
    for c in by:
        out[c] = out[c].astype(object)
    row = {c: ('Total' if i == 0 else '') for i, c in enumerate(by)}
    row.update(total)
    out = pd.concat([out, pd.DataFrame([row])], ignore_index=True)
    better = 1.0 if kind == 'revenue' else -1.0
    out['effect'] = [
        ('on budget' if abs(v) < 0.005 else 'better' if v * better > 0 else 'worse') for v in out['variance']
    ]
    out = out[list(by) + list(PVM_COLUMNS)]
    parts = out[['price', 'volume', 'mix', 'new_lost']].sum(axis=1)
    worst = float((parts - out['variance']).abs().max())
    if worst > 0.005:
        raise ArithmeticError('pvm(): the effects miss the variance by %s: please report it' % money(worst))
    notes.append('price + volume + mix + new_lost = variance on every row (to within %s)' % money(max(worst, 0.0)))
    out.attrs.update(
        {
            'notes': notes,
            'method': PVM_METHOD,
            'kind': kind,
            'by': list(by),
            'units': a.attrs.get('units'),
            'amount': a.attrs.get('amount'),
        }
    )
    _print_pvm_notes(notes)
    return out


def _pvm_by(by):
    if isinstance(by, str):
        by = [by]
    if not isinstance(by, (list, tuple)) or not by or not all(isinstance(b, str) for b in by):
        raise TypeError('by= names the member column(s) (product, SKU, customer), as a string or a list of strings')
    return list(by)


def member_table(x, role):
    """A plain table (one header row, then records) of a DataFrame or an
    attached file, read as variance() reads its inputs."""
    import pandas as pd

    inp = read_input(x, role)
    if not inp.raw:
        return _with_number_format(inp.frame)
    head = find_header(inp)
    body = inp.frame.iloc[head.body :].reset_index(drop=True)
    names, seen = [], {}
    for c in head.columns:
        name = c.text or 'column %d' % (c.pos + 1)
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else '%s (%d)' % (name, seen[name]))
    body.columns = names
    return _with_number_format(pd.DataFrame(body).dropna(how='all'))


def _with_number_format(frame):
    """frame, with the decimal and thousands separators of its text amounts
    in attrs['number_format'] ('1,400.00' is not '1.400,00')."""
    frame = frame.copy(deep=False)  # attrs of its own, the caller's rows not copied
    frame.attrs['number_format'] = number_format_of([frame[c] for c in frame.columns])
    return frame


def amounts_of(frame, col):
    """A column of frame as floats, read with the frame's number format."""
    decimal, thousands = frame.attrs.get('number_format', ('.', None))
    return money_values(frame[col], decimal, thousands)


def find_column(frame, given, names, what, role, notes, numeric=True):
    """The column given, checked, or the one whose name says what it is."""
    cols = list(frame.columns)
    if given is not None:
        if not isinstance(given, str):
            raise TypeError('the %s column is named by a string' % what)
        for c in cols:
            if c == given or fold_text(str(c)) == fold_text(given):
                return c
        raise KeyError('%s have no column %r for the %s (the columns: %s)' % (role, given, what, quoted(cols)))
    hits = [c for c in cols if fold_text(str(c)) in names and (not numeric or _numeric_share(frame, c) >= 0.5)]
    if not hits:
        return None
    notes.append('%s: the %s are the column %r (its name)' % (role, what, hits[0]))
    return hits[0]


def _numeric_share(frame, col):
    v = amounts_of(frame, col)
    return float(v.notna().mean()) if len(v) else 0.0


def _pvm_side(frame, side, by, units, price, revenue, notes):
    """The side's units and amount summed by member."""
    u, p, r = _pvm_columns(frame, side, by, units, price, revenue, notes)
    g = _pvm_member_rows(frame, by, u, p, r)
    g = g.groupby(level=list(range(len(by))), sort=False).sum()
    return _pvm_summed(g, len(frame), side, by, u, p, r, notes)


def _pvm_columns(frame, side, by, units, price, revenue, notes):
    """The side's units column and its price or amount column (the other None)."""
    role = 'the actuals' if side == 'actual' else 'the budget'
    missing = [c for c in by if c not in frame.columns]
    if missing:
        raise KeyError(
            '%s have no column %s for by= (the columns: %s)' % (role, quoted(missing), quoted(frame.columns))
        )
    u = find_column(frame, units, _UNIT_NAMES, 'units', role, notes)
    if u is None:
        raise ValueError(
            '%s: no units column found among %s (by its name: units, qty, volume…): pass units='
            % (role, quoted(frame.columns))
        )
    p = find_column(frame, price, _PRICE_NAMES, 'prices', role, notes) if price is not None else None
    r = find_column(frame, revenue, _AMOUNT_NAMES, 'amounts', role, notes) if p is None else None
    if p is None and r is None:
        p = find_column(frame, None, _PRICE_NAMES, 'prices', role, notes)
        if p is None:
            raise ValueError(
                '%s: no amount column (revenue, sales, amount…) or price column found among %s: pass '
                'revenue= or price=' % (role, quoted(frame.columns))
            )
    return u, p, r


def _pvm_member_rows(frame, by, u, p, r):
    """Each row's units and amount (units * price, or the amount column),
    indexed by its member."""
    import pandas as pd

    qty = amounts_of(frame, u).fillna(0.0)
    amount = qty * amounts_of(frame, p).fillna(0.0) if r is None else amounts_of(frame, r).fillna(0.0)
    keys = frame[by].astype(str).apply(lambda s: s.str.strip())
    return pd.DataFrame(
        {'units': qty.to_numpy(), 'amount': amount.to_numpy()},
        index=pd.MultiIndex.from_frame(keys) if len(by) > 1 else pd.Index(keys[by[0]], name=by[0]),
    )


def _pvm_summed(g, rows, side, by, u, p, r, notes):
    """g, the side summed by member from rows rows (None: the note is
    reduce_pvm_side's), with its note and attrs."""
    role = 'the actuals' if side == 'actual' else 'the budget'
    if rows is not None and len(g) < rows:
        notes.append('%s: %d rows summed into %d members by %s' % (role, rows, len(g), ', '.join(by)))
    g.attrs.update(units=str(u), amount=str(r) if r is not None else '%s * %s' % (u, p))
    return g


def _member_text(k):
    return ' · '.join(str(x) for x in k) if isinstance(k, tuple) else str(k)


def _print_pvm_notes(notes):
    import sys

    print('pvm() notes:\n' + '\n'.join('- ' + n for n in notes[:NOTES_PRINTED]), file=sys.stderr)
