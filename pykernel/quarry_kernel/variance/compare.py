# More than one comparison in one variance() table (after front.py): the
# actuals against the latest forecast and against the prior year beside
# the budget, as FP&A packs lay them out. Each comparison is the same
# variance() run against its own file (the prior year's periods a year
# back), with the lines' kinds the budget comparison decided, so better
# and worse mean the same on every side; its columns join the table by
# line, each with its own variance, percent, effect and materiality.

import re

COMPARISONS = {
    'forecast': {'suffix': 'fc', 'words': 'the forecast', 'shift': 0},
    'prior': {'suffix': 'py', 'words': 'the prior year', 'shift': 1},
}


def comparison_columns(name):
    """The columns a comparison adds: its amount, variance, percent,
    effect and materiality."""
    s = COMPARISONS[name]['suffix']
    return (name, 'variance_' + s, 'variance_%s_pct' % s, 'effect_' + s, 'material_' + s)


def add_comparison(out, name, other, actual, by, value, kind, material_pct, material_abs, period):
    """Adds the comparison's columns to out, the budget's table, in place."""
    import numpy as np

    spec = COMPARISONS[name]
    labels = _labels_of(out)
    is_total = _total_rows(out, labels)
    kinds = kind if isinstance(kind, str) and fold_text(kind) in KIND_VALUES else _kinds_of(out, labels, is_total)
    try:
        other_v = _variance_vs(
            actual, other, by, value, kinds, material_pct, material_abs, period, shift_years=spec['shift']
        )
    except (ValueError, KeyError, TypeError, FileNotFoundError) as e:
        raise type(e)('%s=: %s' % (name, e)) from e
    theirs = {}
    other_total = _total_rows(other_v, labels)
    for i in range(len(other_v)):
        key = 'Total' if other_total[i] else tuple(str(other_v[c].iloc[i]) for c in labels)
        theirs[key] = i
    amount, var, pct, effect, material = comparison_columns(name)
    cols = {c: [] for c in (amount, var, pct, effect, material)}
    mine = set()
    for i in range(len(out)):
        key = 'Total' if is_total[i] else tuple(str(out[c].iloc[i]) for c in labels)
        mine.add(key)
        j = theirs.get(key)
        row = other_v.iloc[j] if j is not None else None
        cols[amount].append(float(row['budget']) if row is not None else np.nan)
        cols[var].append(float(row['variance']) if row is not None else np.nan)
        cols[pct].append(float(row['variance_pct']) if row is not None else np.nan)
        cols[effect].append(str(row['effect']) if row is not None else 'unknown')
        cols[material].append(bool(row['material']) if row is not None else False)
    for c, vals in cols.items():
        out[c] = vals
    out[material] = out[material].astype(bool)
    notes = out.attrs['notes']
    extra = [k for k in theirs if k not in mine]
    if extra:
        notes.append(
            'lines only in %s, left out of the table: %s' % (spec['words'], quoted([' '.join(k) for k in extra]))
        )
    seen = set(notes)
    short = spec['words'][len('the ') :]
    for n in other_v.attrs.get('notes') or []:
        if n in seen:
            continue  # said of the actuals already
        n = re.sub(r'\bbudget\b', short, re.sub(r'\bthe budget\b', spec['words'], n))
        notes.append('vs %s: %s' % (short, n))
    comps = dict(out.attrs.get('comparisons') or {})
    comps[name] = {
        'source': (other_v.attrs.get('sources') or {}).get('budget'),
        'periods': list(other_v.attrs.get('periods') or []),
        'columns': list(comparison_columns(name)),
    }
    out.attrs['comparisons'] = comps


def _total_rows(v, labels):
    return list(v[labels[-1]].astype(str).eq('Total') & v[labels[0]].astype(str).isin(['Total', '']))


def _kinds_of(out, labels, is_total):
    """line -> kind as the budget comparison decided it, for the lines whose
    name is theirs alone."""
    names = {}
    for i in range(len(out)):
        if is_total[i]:
            continue
        name, k = str(out[labels[-1]].iloc[i]), out['kind'].iloc[i]
        if k in ('revenue', 'cost'):
            names.setdefault(name, set()).add(k)
    return {n: ks.pop() for n, ks in names.items() if len(ks) == 1} or None
