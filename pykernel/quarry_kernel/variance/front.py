# variance() for quarry's kernel (sent with kernel.py, after the other
# variance/*.py parts): actuals against budget as FP&A reads them. One row
# per line and a final Total row holding the bottom line; revenue better
# above budget and cost below; material by a share of the budget and an
# amount; every inference the call made listed in result.attrs['notes'].
# The columns and attrs are a contract the bridge and the reports read
# (docs/usage.md, "Variance reports").
import sys

VARIANCE_COLUMNS = ('kind', 'actual', 'budget', 'variance', 'variance_pct', 'effect', 'material')
NOTES_PRINTED = 40


def variance(
    actual,
    budget=None,
    by=None,
    value=None,
    kind=None,
    material_pct=5.0,
    material_abs=None,
    period=None,
    forecast=None,
    prior=None,
    rates=None,
    currency=None,
):
    """Actuals against budget, one row per line and a final 'Total' row.

    Parameters
    ----------
    actual : DataFrame or str
        The actuals (a pandas or dask DataFrame), or a file path (CSV,
        Excel, ... read as the profile reads them); long (a value column,
        maybe a period column) or wide (a column per period: 'Jan',
        '2026-01', 'Q1 2026', 'Jan-26').
    budget : DataFrame or str, optional
        The budget, as actual. Left out, actual is one "Budget vs. Actuals"
        export holding both.
    by : str or list of str, optional
        The column(s) naming the lines (default: the file's line label, with
        its account code where there is one).
    value : str, optional
        The amount column of long data.
    kind : str or dict, optional
        A column, a mapping line -> 'revenue'/'cost', or one kind for all; by
        default inferred from section headers, names and account numbers.
    material_pct : float, default 5.0
        A line is material when abs(variance_pct) >= material_pct and, when
        material_abs is given, abs(variance) >= material_abs.
    material_abs : float, optional
        The amount a variance must reach to be material; a line without
        budget is material when abs(variance) >= material_abs (without
        material_abs, when it is not zero).
    period : str, tuple or list, optional
        A period, a (first, last) range, a list, or 'ytd'/'qtd'/'mtd' up to
        the last period the actuals have; by default every period the
        actuals have.
    forecast : DataFrame or str, optional
        The latest forecast, read as budget is: the table gains forecast,
        variance_fc, variance_fc_pct, effect_fc and material_fc.
    prior : DataFrame or str, optional
        The prior year's actuals, read as budget is, its periods a year
        before the actuals' (Apr 2025 for Apr 2026): the table gains prior,
        variance_py, variance_py_pct, effect_py and material_py.
    rates : DataFrame, str or dict, optional
        Exchange rates into the reporting currency (multipliers) for amounts
        kept in several currencies: a table of currency with an actual and a
        budget rate column (or a rate column and a column saying actual or
        budget), or {'EUR': (actual rate, budget rate)}. The actuals convert
        at the actual rate, the budget at the budget rate; the table gains
        variance_cc (the actuals at the budget rate against the budget) and
        fx_effect (variance - variance_cc).
    currency : str, optional
        The column holding each row's currency (found by its name: currency,
        ccy…). Without rates=, amounts in several currencies are refused.

    Returns
    -------
    DataFrame
        The label columns, kind, actual, budget, variance (actual - budget),
        variance_pct (of the budget; NaN where it is 0), effect ('better',
        'worse', 'on budget', 'unknown' for an unclassified line), material.
        attrs: notes, labels, periods, bottom_line, material_pct,
        material_abs, sources, title, currency, subtotals, file_total, and
        comparisons (those given beside the budget, see compare.py).

    Any of actual, budget, forecast and prior may be a dask DataFrame: it
    is summed by line and period on the cluster (cluster.py) and the rules
    run on those sums.
    """
    dask_notes = []
    if any(reduce_is_dask(x) for x in (actual, budget, forecast, prior)):
        lines_by = _check_args(by, value, kind, material_pct, material_abs, period)
        actual, budget, forecast, prior = reduce_variance_inputs(
            actual, budget, forecast, prior, lines_by, value, kind, currency, dask_notes
        )
    if rates is None:
        out = _variance_vs(actual, budget, by, value, kind, material_pct, material_abs, period)
    else:
        fx_notes = []
        conv, cur, table = fx_inputs(actual, budget, rates, value, currency, fx_notes)
        out = _variance_vs(conv['actual'], conv['budget'], by, value, kind, material_pct, material_abs, period)
        kinds = (
            kind
            if isinstance(kind, str) and fold_text(kind) in KIND_VALUES
            else _kinds_of(out, _labels_of(out), _total_rows(out, _labels_of(out)))
        )
        cc = _variance_vs(conv['actual_cc'], conv['budget'], by, value, kinds, material_pct, material_abs, period)
        add_fx(out, cc, cur, table)
        out.attrs['notes'] = fx_notes + out.attrs['notes']
        out.attrs['sources'] = {
            k: x if isinstance(x, str) else out.attrs['sources'][k] for k, x in (('actual', actual), ('budget', budget))
        }
        actual = conv['actual']  # the comparisons beside it are in the reporting currency
    for name, other in (('forecast', forecast), ('prior', prior)):
        if other is not None:
            add_comparison(out, name, other, actual, by, value, kind, material_pct, material_abs, period)
    if dask_notes:
        out.attrs['notes'] = dask_notes + out.attrs['notes']
    _print_notes(out.attrs['notes'])
    return out


def _labels_of(v):
    return [c for c in v.attrs.get('labels', []) if c in v.columns] or [v.columns[0]]


def _variance_vs(actual, budget, by, value, kind, material_pct, material_abs, period, shift_years=0):
    """The table against one comparison (the budget, or beside it a
    forecast or the prior year, whose periods are shift_years before)."""
    by = _check_args(by, value, kind, material_pct, material_abs, period)
    a_in = read_input(actual, 'actuals')
    notes = []
    if budget is None:
        lay = layout_of(a_in, 'actual', value, by, kind, both=True)
        st = structure_of(lay)
        for side in ('actual', 'budget'):
            if side not in st.amounts:
                raise ValueError(
                    'budget= was left out, so %s must hold both sides, but %s no %s column (the '
                    'columns: %s): pass budget= or name the columns Actual and Budget'
                    % (a_in.name, 'they have', side, ', '.join(repr(c.text) for c in lay.columns[:30]))
                )
        files = [(lay, st, ('actual', 'budget'))]
        merged, match_notes = one_file_lines(st.lines)
    else:
        b_in = read_input(budget, 'budget')
        lay = layout_of(a_in, 'actual', value, by, kind)
        st = structure_of(lay)
        lb = layout_of(b_in, 'budget', _present(b_in, value), by, _present(b_in, kind))
        sb = structure_of(lb)
        if 'actual' not in st.amounts:
            raise ValueError(
                '%s hold only budget columns (%s): pass them as budget='
                % (a_in.name, quoted([c.text for c in lay.sides.get('budget', [])]))
            )
        if 'budget' not in sb.amounts and 'actual' in sb.amounts and lb.sides:
            raise ValueError(
                '%s hold only actual columns (%s): pass the budget file as budget='
                % (b_in.name, quoted([c.text for c in lb.sides.get('actual', [])]))
            )
        files = [(lay, st, ('actual',)), (lb, sb, ('budget',))]
        merged, match_notes = match_lines(st.lines, sb.lines)
    for lay_i, _, _ in files:
        check_layout_currency(lay_i, None)
    for lay_i, st_i, _ in files:
        notes += lay_i.notes + st_i.notes
    choice, sums = _sum_periods(files, period, notes, shift_years)
    notes += match_notes
    ks = decide_kinds(merged, kind, None)
    notes += ks.notes
    amounts = {}
    for _lay_i, st_i, sides in files:
        for side in sides:
            per_line = sums[(id(st_i), side)]
            idx = (lambda m: m.a) if side == 'actual' else (lambda m: m.b)
            amounts[side] = _merged_amounts(merged, per_line, idx)
    file_kinds = _file_kinds(files, merged, ks.kind)
    records = []
    for lay_i, st_i, sides in files:
        side_sums = {s: (sums[(id(st_i), s)], sums[(id(st_i), s, 'totals')]) for s in sides}
        recs, more = check_totals(st_i, side_sums, file_kinds[id(st_i)], lay_i.inp.name)
        records += recs
        notes += more
    for side, words in (('actual', 'actuals'), ('budget', 'budget')):
        signs, note = sign_convention(amounts[side], ks.kind, 'the ' + words)
        if note:
            notes.append(note)
            amounts[side] = [v * signs.get(k, 1.0) if k else v for v, k in zip(amounts[side], ks.kind)]
    out = variance_table(merged, ks.kind, amounts['actual'], amounts['budget'], lay, material_pct, material_abs, notes)
    out.attrs.update(
        {
            'notes': notes,
            'periods': [st.period_text.get(k, period_label(k)) for k in choice.keys] if choice else [],
            'period': choice.words if choice else None,
            'material_pct': float(material_pct),
            'material_abs': None if material_abs is None else float(material_abs),
            'sources': {'actual': a_in.name, 'budget': a_in.name if budget is None else b_in.name},
            'title': list(lay.header.title),
            'footer': list(st.footer),
            'currency': lay.currency,
            'subtotals': records,
            'file_total': _file_total(records),
        }
    )
    return out


def _check_args(by, value, kind, material_pct, material_abs, period):
    import numbers

    if not isinstance(material_pct, numbers.Real) or isinstance(material_pct, bool) or not material_pct >= 0:
        raise ValueError('material_pct must be a percentage of the budget, 0 or more (got %r)' % (material_pct,))
    if material_abs is not None and (
        not isinstance(material_abs, numbers.Real) or isinstance(material_abs, bool) or not material_abs >= 0
    ):
        raise ValueError('material_abs must be an amount, 0 or more, or None (got %r)' % (material_abs,))
    if value is not None and not isinstance(value, str):
        raise TypeError('value= names the amount column, as a string')
    if kind is not None and not isinstance(kind, (str, dict)):
        raise TypeError("kind= is a column name, a mapping line -> 'revenue'/'cost', or 'revenue'/'cost'")
    if period is not None and not isinstance(period, (str, tuple, list)) and period_of(period) is None:
        raise TypeError("period= is a period ('Mar 2026'), a (first, last) pair, a list, or 'ytd'/'qtd'/'mtd'")
    if by is None:
        return None
    by = [by] if isinstance(by, str) else list(by)
    if not by or not all(isinstance(b, str) for b in by):
        raise TypeError('by= names the label column(s), as a string or a list of strings')
    return by


def _present(inp, name):
    """A column name of the call's, when the budget has it too; a kind
    that is not a column passes as it is."""
    if not isinstance(name, str) or (fold_text(name) in KIND_VALUES):
        return name
    try:
        cols = find_header(inp).columns
    except Exception:
        return None
    return name if any(c.text == name or fold_text(c.text) == fold_text(name) for c in cols) else None


def _sum_periods(files, period, notes, shift_years=0):
    """Each side's line and total amounts summed over the chosen periods,
    keyed (id(structure), side) and (id(structure), side, 'totals')."""
    import numpy as np

    a_lay, a_st, _ = files[0]
    a_per = a_st.amounts['actual']
    b_st = files[-1][1]
    b_per = b_st.amounts['budget']
    a_keys = [k for k in a_per if k is not None]
    b_keys = [k for k in b_per if k is not None]
    sums = {}
    choice = None
    if a_keys:
        had = {k for k in a_keys if np.any(np.nan_to_num(a_per[k]) != 0)}
        choice = choose_periods(a_keys, had, period)
        if not b_keys:
            notes.append(
                'the budget has no periods: its amounts are compared with the actuals of %s'
                % (_span_words([a_st.period_text.get(k, period_label(k)) for k in choice.keys]))
            )
            b_use = [None]
        else:
            b_use = _budget_keys(choice.keys, b_keys, notes, shift_years)
        a_use = choice.keys
        _period_note(choice, a_st, a_keys, had, notes)
    elif b_keys:
        span = _aggregate_span(a_lay)
        if period is None and span is None:
            raise ValueError(
                'the budget is by period (%s) but the actuals are one amount per line: pass period= '
                'to say which budget periods the actuals cover, e.g. period=(%r, %r)'
                % (_span_words(b_keys), period_label(b_keys[0]), period_label(b_keys[-1]))
            )
        choice = choose_periods(b_keys, set(b_keys), period if period is not None else span)
        b_use, a_use = choice.keys, [None]
        notes.append(
            'the actuals are one amount per line; the budget is summed over %s'
            % _span_words([b_st.period_text.get(k, period_label(k)) for k in choice.keys])
        )
    else:
        if period is not None:
            raise ValueError('period=%r: neither file has periods (columns or a period column)' % (period,))
        a_use = b_use = [None]
    for _lay_i, st_i, sides in files:
        for side in sides:
            use = a_use if side == 'actual' else b_use
            for what, per in (('lines', st_i.amounts[side]), ('totals', st_i.total_amounts[side])):
                n = len(st_i.lines) if what == 'lines' else len(st_i.totals)
                arrs = [per[k] for k in use if k in per]
                total = np.nansum(np.vstack(arrs), axis=0) if arrs else np.zeros(n)
                if arrs:
                    allnan = np.all(np.isnan(np.vstack(arrs)), axis=0)
                    total = np.where(allnan, np.nan, total) if what == 'totals' else total
                sums[(id(st_i), side) if what == 'lines' else (id(st_i), side, 'totals')] = total
    return choice, sums


def _budget_keys(keys, b_keys, notes, shift_years=0):
    """The budget's periods for the actuals' chosen ones: the same keys
    (shift_years before, for the prior year), or the same months when one
    side names no year."""
    if shift_years:
        back = [(k[0], k[1] - shift_years, k[2]) for k in keys if k[1] is not None]
        use = [k for k in back if k in b_keys]
        if use:
            if len(use) < len(back):
                notes.append(
                    'the budget has nothing for %s: counted as 0' % _span_words([k for k in back if k not in use])
                )
            return use
    if set(keys) & set(b_keys):
        missing = [k for k in keys if k not in b_keys]
        if missing:
            notes.append('the budget has nothing for %s: counted as 0' % _span_words(missing))
        return [k for k in keys if k in b_keys]
    a_plain, b_plain = without_years(keys), without_years(b_keys)
    want = {a_plain[k] for k in keys}
    use = [k for k in b_keys if b_plain[k] in want]
    if not use:
        raise ValueError(
            'the budget\'s periods (%s) do not include the actuals\' (%s)' % (_span_words(b_keys), _span_words(keys))
        )
    return use


def _period_note(choice, st, keys, had, notes):
    text = [st.period_text.get(k, period_label(k)) for k in choice.keys]
    note = 'periods summed: %s, %s' % (_span_words(text), choice.words)
    later = [k for k in choice.keys if k not in had]
    if later and choice.words.startswith('the period'):
        note += '; the actuals have nothing in %s' % _span_words(
            [st.period_text.get(k, period_label(k)) for k in later]
        )
    notes.append(note)


def _aggregate_span(lay):
    for c in lay.sides.get('actual', []):
        if c.span:
            return c.span
    return None


def _merged_amounts(merged, per_line, idx):
    """Each merged line's amount: the sum of the file lines it holds."""
    import numpy as np

    into, lines = [], []
    for i, m in enumerate(merged):
        ii = idx(m)
        into += [i] * len(ii)
        lines += ii
    out = np.zeros(len(merged))
    if lines:
        np.add.at(out, np.asarray(into), np.nan_to_num(np.asarray(per_line, dtype='float64')[np.asarray(lines)]))
    return out.tolist()


def _file_kinds(files, merged, kinds):
    """Each file's lines' kinds, from the merged lines they went into."""
    out = {}
    for i, (_lay_i, st_i, _sides) in enumerate(files):
        ks = [None] * len(st_i.lines)
        for m, k in zip(merged, kinds):
            for j in m.a if i == 0 else m.b:
                ks[j] = k
        out[id(st_i)] = ks
    return out


def _file_total(records):
    """The file's own bottom line: its last result or grand total row."""
    for r in reversed(records):
        if r['what'] in ('profit', 'grand'):
            return {k: r.get(k) for k in ('label', 'actual', 'budget', 'ok')}
    return None


def _print_notes(notes):
    if not notes:
        return
    shown = notes[:NOTES_PRINTED]
    more = len(notes) - len(shown)
    print(
        'variance() notes:\n'
        + '\n'.join('- ' + n for n in shown)
        + ('\n- … %d more in .attrs["notes"]' % more if more else ''),
        file=sys.stderr,
    )
