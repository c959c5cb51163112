# The table variance() returns (sent with kernel.py): the label columns,
# kind, actual, budget, variance, variance_pct, effect and material for each
# line, and a final Total row with the bottom line: profit (revenue less
# cost) when both kinds are there, else the sum. Amounts are rounded to 9
# decimals so float noise never decides 'on budget' or a threshold's edge.
EDGE = 1e-9  # a threshold met to within this counts as met


def _label_names(lay, width):
    """The label columns' names: the file's own, else 'code' and 'line'."""
    if lay.by_pos is not None:
        names = [lay.name_of(p) or 'line %d' % (i + 1) for i, p in enumerate(lay.by_pos)]
    else:
        names = [lay.name_of(lay.label_pos[0]) or 'line']
    if lay.by_pos is None and lay.code_pos is not None and width > 1:
        names.insert(0, lay.name_of(lay.code_pos) or 'code')
    while len(names) < width:
        names.insert(0, 'code' if 'code' not in names else 'label %d' % len(names))
    out = []
    for n in names[-width:]:
        n = str(n)
        while n in VARIANCE_COLUMNS or n in out:
            n += ' (line)'
        out.append(n)
    return out


def effects(kinds, var):
    out = []
    for k, v in zip(kinds, var):
        if v == 0:
            out.append('on budget')
        elif k in ('revenue', 'profit'):
            out.append('better' if v > 0 else 'worse')
        elif k == 'cost':
            out.append('worse' if v > 0 else 'better')
        else:
            out.append('unknown')
    return out


def materiality(var, pct, budget, material_pct, material_abs):
    import numpy as np

    av = np.abs(var)
    with_budget = np.abs(np.nan_to_num(pct)) + EDGE >= material_pct
    if material_abs is not None:
        with_budget &= av + EDGE >= material_abs
        without = av + EDGE >= material_abs
        without &= av > 0
    else:
        without = av > 0
    return np.where(budget != 0, with_budget, without) & (av > 0)


def variance_table(merged, kinds, actual, budget, lay, material_pct, material_abs, notes):
    import numpy as np
    import pandas as pd

    width = max((len(m.labels) for m in merged), default=1)
    names = _label_names(lay, width)
    labels = [
        tuple([''] * (width - len(m.labels))) + tuple(m.labels) if len(m.labels) < width else m.labels for m in merged
    ]
    a = np.round(np.asarray(actual, dtype='float64'), 9)
    b = np.round(np.asarray(budget, dtype='float64'), 9)
    kinds = list(kinds)
    has_rev, has_cost = 'revenue' in kinds, 'cost' in kinds
    if has_rev and has_cost:
        bottom = 'profit'
        sign = np.array([1.0 if k == 'revenue' else -1.0 if k == 'cost' else 0.0 for k in kinds])
        left = [m.label for m, k in zip(merged, kinds) if k is None]
        if left:
            notes.append('left out of the bottom line (profit = revenue − cost), being unclassified: %s' % quoted(left))
    else:
        bottom = 'revenue' if has_rev else 'cost' if has_cost else 'sum'
        sign = np.ones(len(kinds))
    total_a = round(float(np.sum(a * sign)), 9) if len(a) else 0.0
    total_b = round(float(np.sum(b * sign)), 9) if len(b) else 0.0
    a = np.append(a, total_a)
    b = np.append(b, total_b)
    all_kinds = kinds + [bottom if bottom != 'sum' else None]
    var = np.round(a - b, 9)
    with np.errstate(divide='ignore', invalid='ignore'):
        pct = np.where(b != 0, np.round(var / np.abs(np.where(b != 0, b, 1.0)) * 100.0, 9), np.nan)
    cols = {}
    total_label = [''] * (width - 1) + ['Total']
    for j, n in enumerate(names):
        cols[n] = [lab[j] for lab in labels] + [total_label[j]]
    cols['kind'] = all_kinds
    cols['actual'] = a
    cols['budget'] = b
    cols['variance'] = var
    cols['variance_pct'] = pct
    cols['effect'] = effects(all_kinds, var)
    cols['material'] = materiality(var, pct, b, material_pct, material_abs)
    out = pd.DataFrame(cols)
    out['material'] = out['material'].astype(bool)
    out.attrs['labels'] = names
    out.attrs['bottom_line'] = bottom
    return out
