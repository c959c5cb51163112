# The file's own arithmetic, checked for variance() (sent with kernel.py):
# each subtotal and total row against the lines it may total (a section's
# sum, or revenue less cost up to it), on the periods the call sums; and
# the sign convention of each side (costs written as negative amounts, or
# revenue as negative credits), turned into plain amounts when one is clear.
TOLERANCE = 0.01  # a cent: exports round each line


def money(v):
    return f'{v:,.2f}' if v == v else 'nothing'


def check_totals(st, side_sums, kinds_of_lines, name):
    """side_sums: side -> (line amounts, total amounts) over the periods
    summed, in the file's own signs. Returns (records, notes)."""
    import numpy as np

    records, notes = [], []
    for t_i, t in enumerate(st.totals):
        rec = {'label': t.label, 'what': t.what}
        ok = True
        for side, (lines, totals) in side_sums.items():
            if t_i >= len(totals):
                continue
            stated = totals[t_i]
            rec[side] = None if stated != stated else float(stated)
            if stated != stated:
                continue
            cands = []
            for a, b in t.ranges:
                seg = lines[a:b]
                kinds = kinds_of_lines[a:b]
                plain = float(np.nansum(seg))
                rev = float(np.nansum([v for v, k in zip(seg, kinds) if k == 'revenue']))
                cost = float(np.nansum([v for v, k in zip(seg, kinds) if k == 'cost']))
                other = float(np.nansum([v for v, k in zip(seg, kinds) if k is None]))
                first = [rev - cost + other, plain] if t.what == 'profit' else [plain, rev - cost + other]
                cands.extend(first)
            if not cands:
                continue
            match = next((c for c in cands if abs(c - stated) <= TOLERANCE + 1e-9 * abs(stated)), None)
            rec[side + '_lines'] = round(cands[0] if match is None else match, 9)
            if match is None:
                ok = False
                notes.append(
                    '%s: %r (%s) is %s, but the lines it totals give %s (a difference of %s)'
                    % (name, short_name(t.label), side, money(stated), money(cands[0]), money(stated - cands[0]))
                )
        rec['ok'] = ok
        records.append(rec)
    return records, notes


def sign_convention(amounts, kinds, side_name):
    """Multipliers per kind that make revenue and cost plain positive
    amounts, and the note that says so: a side whose cost lines are nearly
    all negative (while its revenue is not) writes costs as negatives."""
    import numpy as np

    signs = {'revenue': 1.0, 'cost': 1.0}
    share = {}
    for k in ('revenue', 'cost'):
        v = np.array([a for a, kk in zip(amounts, kinds) if kk == k and a == a and a != 0])
        share[k] = (float((v < 0).mean()), len(v)) if len(v) else (0.0, 0)
    rev_neg, n_rev = share['revenue']
    cost_neg, n_cost = share['cost']
    if n_cost >= 2 and cost_neg >= 0.75 and (n_rev == 0 or rev_neg <= 0.25):
        signs['cost'] = -1.0
        return signs, 'costs are negative amounts in %s: read as positive costs' % side_name
    if n_rev >= 2 and rev_neg >= 0.75 and n_cost >= 1 and cost_neg <= 0.25:
        signs['revenue'] = -1.0
        return signs, 'revenue is negative (credits) in %s: read as positive revenue' % side_name
    return signs, None
