# Long data for variance() (sent with kernel.py): one row per line and
# period (or per posting), an amount column, maybe a period column (dates,
# 'Jan 2026', month numbers beside a year column) and a scenario column
# saying Actual or Budget. Rows are summed into one line per label and
# period; rows labelled as totals are left out, not summed.


def _long_structure(lay):
    import numpy as np
    import pandas as pd

    st = Structure()
    st.long = True
    body = lay.body
    n = len(body)
    if lay.by_pos is not None:
        names = lay.by_name
        codes = pd.Series(lay.by_code, index=body.index) if lay.by_code is not None else None
    else:
        names = texts_of(body.iloc[:, lay.label_pos[-1]]).map(clean_label)
        codes = body.iloc[:, lay.code_pos].map(_code_text) if lay.code_pos is not None else None
    # the rows each row stands for: 1, or a dask frame's rows it sums (cluster.py)
    weight = np.ones(n, dtype=np.int64) if lay.inp.rows is None else np.asarray(lay.inp.rows[lay.header.body :])
    totals = names.map(lambda t: bool(t) and total_kind(t)[0] is not None)
    if totals.any():
        n_totals = int(weight[totals.to_numpy()].sum())
        st.notes.append(
            '%d row%s labelled as totals (%s) %s left out, not summed'
            % (
                n_totals,
                '' if n_totals == 1 else 's',
                quoted(names[totals].unique()[:NOTE_NAMES]),
                'is' if n_totals == 1 else 'are',
            )
        )
    said = []
    if lay.period_pos is not None:
        said.append(
            'the periods from %r' % lay.columns[lay.period_pos].text
            + (' and %r' % lay.columns[lay.year_pos].text if lay.year_pos is not None else '')
        )
    if lay.scenario_pos is not None:
        said.append('actual or budget from %r' % lay.columns[lay.scenario_pos].text)
    if said:
        st.notes.append('%s: %s' % (lay.inp.name, '; '.join(said)))
    value = lay.amounts[lay.value_pos]
    keep = ~totals.to_numpy()
    if lay.scenario_pos is not None:
        sides = body.iloc[:, lay.scenario_pos].map(lambda v: side_of(cell_text(v))[0])
        other = ~sides.isin(['actual', 'budget'])
        if other.any():
            st.notes.append(
                '%d rows whose %r is neither actual nor budget (%s) are left out'
                % (
                    int(weight[other.to_numpy()].sum()),
                    lay.columns[lay.scenario_pos].text,
                    quoted(texts_of(body.iloc[:, lay.scenario_pos][other]).unique()),
                )
            )
            keep &= ~other.to_numpy()
    else:
        sides = pd.Series(lay.role, index=body.index)
    periods = _row_periods(lay, body) if lay.period_pos is not None else pd.Series([None] * n, index=body.index)
    if lay.period_pos is not None:
        bad = periods.isna() & (texts_of(body.iloc[:, lay.period_pos]) != '')
        if bad.any():
            raise ValueError(
                '%s: the %r column holds values that are not periods (%s)'
                % (
                    lay.inp.name,
                    lay.columns[lay.period_pos].text,
                    quoted(texts_of(body.iloc[:, lay.period_pos][bad]).unique()[:5]),
                )
            )
    if lay.by_pos is not None:
        keys = pd.Series(['\x00'.join(map(line_key, t)) for t in lay.by_labels], index=body.index)
    elif codes is not None:
        keys = codes.fillna('') + '\x00' + names.map(line_key)
    else:
        keys = names.map(line_key)
    frame = pd.DataFrame(
        {
            'key': keys.to_numpy(),
            'side': sides.to_numpy(),
            'value': value.to_numpy(),
            'period': periods.to_numpy(),
            'row': np.arange(n),
        }
    )[keep]
    if frame.empty:
        raise ValueError('%s hold no lines' % lay.inp.name)
    first = frame.drop_duplicates('key')
    line_of = {k: i for i, k in enumerate(first['key'])}
    for r in first['row']:
        name = names.iloc[r] or '(no name, row %d)' % (body.index[r] + 1)
        code = codes.iloc[r] if codes is not None and lay.by_pos is None else None
        if lay.by_pos is not None:
            labels = lay.by_labels[r]
        else:
            labels = (cell_text(body.iloc[r, lay.code_pos]), name) if codes is not None else (name,)
        ln = Line(labels, name, code, body.index[r])
        ln.account = codes.iloc[r] if codes is not None else None
        if lay.kind_pos is not None:
            ln.column_kind = kind_value(body.iloc[r, lay.kind_pos]) if cell_text(body.iloc[r, lay.kind_pos]) else None
            ln.kind_column = lay.columns[lay.kind_pos].text
        st.lines.append(ln)
    frame['line'] = frame['key'].map(line_of)
    frame['period'] = frame['period'].map(lambda k: k if k is not None else '')
    sums = frame.groupby(['side', 'period', 'line'], sort=False)['value'].sum(min_count=1)
    nlines = len(st.lines)
    for (side, period, line), v in sums.items():
        key = period if period != '' else None
        per = st.amounts.setdefault(side, {})
        if key not in per:
            per[key] = np.full(nlines, np.nan)
        per[key][line] = v
    for side in st.amounts:
        st.total_amounts[side] = {k: np.zeros(0) for k in st.amounts[side]}
    if lay.period_pos is not None:
        for _r, k in zip(range(n), periods):
            if k is not None and k not in st.period_text:
                st.period_text[k] = period_label(k)
    by_line = ['side', 'period', 'line']
    if lay.inp.rows is None:
        per_line = frame.groupby(by_line).size()
    else:
        per_line = frame.assign(weight=weight[frame['row'].to_numpy()]).groupby(by_line)['weight'].sum()
    if (per_line > 1).any():
        if lay.period_pos is None:
            dup = per_line[per_line > 1]
            st.notes.append(
                'repeated in %s and summed: %s'
                % (
                    lay.inp.name,
                    ', '.join(
                        '%r (%d times)' % (short_name(st.lines[i].label), n)
                        for (_, _, i), n in dup.head(NOTE_NAMES).items()
                    )
                    + (' and %d more' % (len(dup) - NOTE_NAMES) if len(dup) > NOTE_NAMES else ''),
                )
            )
        else:
            st.notes.append('%s: %d rows summed into %d lines' % (lay.inp.name, int(weight[keep].sum()), nlines))
    return st


def _row_periods(lay, body):
    """The period key of each row: a date's month, a label's period, or a
    month number with the year column beside it."""
    import pandas as pd

    col = body.iloc[:, lay.period_pos]
    if col.dtype.kind == 'M':
        return pd.Series([('M', t.year, t.month) if t == t else None for t in col], index=body.index)
    years = body.iloc[:, lay.year_pos] if lay.year_pos is not None else None
    uniq = {}
    out = []
    for i, v in enumerate(col):
        if years is not None and isinstance(v, (int, float)) and v == v and 1 <= v <= 16:
            y = years.iloc[i]
            k = ('M' if v <= 12 else 'P', int(y) if y == y else None, int(v))
        else:
            k = uniq.get(v) if not isinstance(v, float) or v == v else None
            if k is None and cell_text(v):
                k = uniq[v] = (
                    period_of(v, years_ok=True)
                    if not isinstance(v, (int, float)) or v > 31
                    else ('M', None, int(v))
                    if 1 <= v <= 12
                    else None
                )
        out.append(k)
    return pd.Series(out, index=body.index, dtype=object)
