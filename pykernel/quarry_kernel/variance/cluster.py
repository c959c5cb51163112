# Dask DataFrames for variance(), explain() and pvm() (sent with kernel.py,
# before read.py): a frame on a Dask cluster is reduced there to the small
# table the function needs (account × period sums for variance(), account ×
# member sums for explain(), member sums of units and amounts for pvm()),
# and the function's own rules then run on that table in pandas, as on any
# frame. Its columns are found as a pandas frame's are, by the same code,
# on its first rows (REDUCE_HEAD_ROWS: more than any look at the values
# takes); its amounts are read per partition the same way and summed by
# group on the cluster (integers as integers), each group in the order of
# its first row, with the number of rows it sums. Nothing here imports
# dask unless an input is a dask collection.

REDUCE_HEAD_ROWS = 10_000  # rows the columns are found from (the header, layout and money read 2,000 at most)
_REDUCE_FIRST = 1 << 40  # a row's place: its partition * this + its position in the partition


class Reduced:
    """A dask frame reduced on the cluster, as read_input takes it: frame,
    a pandas DataFrame; rows, how many of the dask frame's rows each of its
    rows sums; note, what was reduced to what."""

    def __init__(self, frame, rows, note):
        self.frame, self.rows, self.note = frame, rows, note


class ReducedSums:
    """One grouping of reduce_sums: frame, the keys and the sums (first rows
    first); rows, the rows each sums; partitions and total, of the input."""

    def __init__(self, frame, rows, partitions):
        self.frame, self.rows, self.partitions = frame, rows, partitions
        self.total = int(rows.sum())


def reduce_is_dask(x):
    """Whether x is a dask collection, told without importing dask."""
    t = type(x)
    return t.__module__.split('.')[0] in ('dask', 'dask_expr') or hasattr(t, '__dask_graph__')


def reduce_frame(x, role):
    """x as a dask DataFrame, as read_input takes a pandas one: a Series as
    a frame, lines as the index (after a groupby) as columns."""
    import pandas as pd

    meta = getattr(x, '_meta', None)
    if isinstance(meta, pd.Series):
        x = x.to_frame() if all(n is None for n in meta.index.names) else x.reset_index()
    elif not isinstance(meta, pd.DataFrame):
        raise TypeError('the %s: a dask %s, not a DataFrame' % (role, type(x).__name__))
    elif any(n is not None for n in meta.index.names):
        x = x.reset_index()  # lines as the index (after a groupby): they are the labels
    if x._meta.shape[1] == 0:
        raise ValueError('the %s are an empty DataFrame (0 columns)' % role)
    return x


def reduce_head(ddf, n=REDUCE_HEAD_ROWS):
    """The frame's first n rows, text as pandas reads it (object, NaN for
    none: dask makes it string[pyarrow]), and the lengths of the first
    partitions, those read whole."""
    import pandas as pd

    parts, lengths, got = [], [], 0
    for i in range(ddf.npartitions):
        want = n - got
        p = ddf.get_partition(i).head(want, npartitions=1, compute=True)
        parts.append(p)
        got += len(p)
        if len(p) >= want:
            break
        lengths.append(len(p))
    head = pd.concat(parts) if len(parts) > 1 else parts[0]
    return _reduce_objects(head.reset_index(drop=True)), lengths


def _reduce_objects(frame):
    """Text columns as object, NaN for none, as a pandas read gives them."""
    import numpy as np
    import pandas as pd

    out = None
    for j, t in enumerate(frame.dtypes):
        if isinstance(t, pd.api.extensions.ExtensionDtype) and pd.api.types.is_string_dtype(t):
            if out is None:
                out = frame.copy(deep=False)
            col = frame.iloc[:, j]
            out.isetitem(j, col.astype(object).where(col.notna(), np.nan))
    return frame if out is None else out


def reduce_sums(ddf, prepare, names, groupings, values, head, skip=None):
    """The rows of ddf as prepare(partition) gives them (pandas, row by row:
    a frame of the columns names), summed on the cluster by each grouping
    (a list of key names) in one pass over the data. skip: partition ->
    rows at its top left out (a header in the rows). Returns a ReducedSums
    per grouping; a sum is NaN where its group holds no number, as pandas'
    sum(min_count=1)."""
    import dask
    import numpy as np
    import pandas as pd

    skip = skip or {}
    pos = {n: j for j, n in enumerate(names)}
    vals = [pos[v] for v in values]

    def rows(part, number):
        out = prepare(_reduce_objects(part))
        out = out.set_axis(['c%d' % j for j in range(len(names))], axis=1)
        for j in vals:
            out['n%d' % j] = out['c%d' % j].notna().to_numpy().astype(np.int64)
        out['first'] = number * _REDUCE_FIRST + np.arange(len(out), dtype=np.int64)
        out['rows'] = np.ones(len(out), dtype=np.int64)
        return out

    def partition(part, partition_info=None):
        i = (partition_info or {}).get('number', 0)
        return rows(part.iloc[skip[i] :] if skip.get(i) else part, i)

    meta = rows(head.iloc[:5], 0).iloc[:0]
    m = ddf.map_partitions(partition, meta=meta)
    spec = {'c%d' % j: 'sum' for j in vals}
    spec.update({'n%d' % j: 'sum' for j in vals})
    spec.update({'first': 'min', 'rows': 'sum'})
    aggs = [
        m.groupby(['c%d' % pos[k] for k in keys], dropna=False, sort=False, observed=True).agg(spec)
        for keys in groupings
    ]
    out = []
    for keys, res in zip(groupings, dask.compute(*aggs)):
        res = res.reset_index().sort_values('first', kind='stable').reset_index(drop=True)
        cols = [res['c%d' % pos[k]] for k in keys]
        for j in vals:
            v = res['c%d' % j]
            none = res['n%d' % j].to_numpy() == 0
            cols.append(v.astype('float64').where(~none) if none.any() else v)
        frame = pd.concat(cols, axis=1, ignore_index=True)
        frame.columns = pd.Index(list(keys) + list(values), dtype=object, tupleize_cols=False)
        out.append(ReducedSums(_reduce_objects(frame), res['rows'].to_numpy(), ddf.npartitions))
    return out


def reduce_note(role, sums, what):
    """The one note saying a frame was reduced on the cluster."""
    return '%s: reduced %d partition%s (%d rows) to %s on the cluster' % (
        role,
        sums.partitions,
        '' if sums.partitions == 1 else 's',
        sums.total,
        what,
    )


def _reduce_month(col):
    """Dates as their month's first day, as the periods read them (the
    month of the date as written, in its own time zone)."""
    if getattr(col.dt, 'tz', None) is not None:
        col = col.dt.tz_localize(None)
    return col.dt.to_period('M').dt.to_timestamp()


def reduce_variance_inputs(actual, budget, forecast, prior, by, value, kind, currency, notes):
    """variance()'s dask inputs reduced to their lines (by period, scenario
    and currency where they have them), each a Reduced; the rest as they are."""
    plain_kind = kind if isinstance(kind, str) and fold_text(kind) in KIND_VALUES else None
    out = []
    for name, x in (('actual', actual), ('budget', budget), ('forecast', forecast), ('prior', prior)):
        if not reduce_is_dask(x):
            out.append(x)
            continue
        try:
            if name == 'actual':
                r = _reduce_lines(x, 'actuals', 'actual', value, by, kind, budget is None, currency, 'the actuals')
            else:
                k = kind if name == 'budget' else plain_kind
                said = COMPARISONS[name]['words'] if name in COMPARISONS else 'the budget'
                r = _reduce_lines(x, 'budget', 'budget', value, by, k, False, currency, said)
        except (ValueError, KeyError, TypeError) as e:
            if name in ('forecast', 'prior'):
                raise type(e)('%s=: %s' % (name, e)) from e
            raise
        notes.append(r.note)
        out.append(r)
    return out


def _reduce_lines(x, words, role, value, by, kind, both, currency, said):
    """One variance() input summed by its lines: the columns the layout
    finds on the first rows (labels, code, kind, scenario, period, year,
    currency) as keys, its amount columns summed."""
    import numpy as np
    import pandas as pd

    ddf = reduce_frame(x, words)
    head, lengths = reduce_head(ddf)
    inp = read_input(head, words)
    if role == 'budget':
        value, kind = _present(inp, value), _present(inp, kind)
    lay = layout_of(inp, role, value, by, kind, both)
    keys = set(lay.label_pos) | set(lay.by_pos or ())
    keys |= {p for p in (lay.code_pos, lay.kind_pos, lay.scenario_pos, lay.period_pos, lay.year_pos) if p is not None}
    cur = fold_text(currency) if isinstance(currency, str) else None
    currencies = {c.pos for c in lay.columns if fold_text(c.text) in _CURRENCY_NAMES or fold_text(c.text) == cur}
    keys |= currencies
    if lay.value_pos is not None:
        values = [lay.value_pos]
    else:
        values = sorted({c.pos for cs in lay.sides.values() for c in cs})
    keys = sorted(keys - set(values))
    positions = sorted(keys + values)
    body = lay.header.body
    skip, left = {}, body
    for i, n in enumerate(lengths + [None]):
        if left <= 0:
            break
        skip[i] = left if n is None else min(left, n)
        left -= skip[i]

    def prepare(part):
        cols = []
        for p in positions:
            col = part.iloc[:, p]
            if p in values and col.dtype.kind not in 'biuf':
                col = money_values(col, lay.decimal, lay.thousands)
            elif p == lay.period_pos and col.dtype.kind == 'M':
                col = _reduce_month(col)
            cols.append(col)
        out = pd.concat(cols, axis=1, ignore_index=True)
        out.columns = positions
        return out

    sums = reduce_sums(ddf, prepare, positions, [keys], values, head.iloc[body:], skip)[0]
    frame = sums.frame[positions]
    frame.columns = pd.Index([head.columns[p] for p in positions], dtype=object, tupleize_cols=False)
    rows = sums.rows
    if body:
        top = head.iloc[:body, positions]
        top.columns = frame.columns
        frame = pd.concat([top, frame], ignore_index=True)
        rows = np.concatenate([np.ones(body, dtype=np.int64), rows])
    what = ' × '.join(
        ['account']
        + (['scenario'] if lay.scenario_pos is not None else [])
        + (['currency'] if currencies - set(values) else [])
        + (['period'] if lay.period_pos is not None else [])
    )
    return Reduced(frame, rows, reduce_note(said, sums, '%d %s rows' % (len(sums.frame), what)))


def reduce_member_head(x, role):
    """A dask input of pvm() or explain(): the frame and its first rows as
    member_table reads a pandas frame (its number format judged on them)."""
    ddf = reduce_frame(x, role)
    head, _ = reduce_head(ddf)
    return ddf, member_table(head, role)


def reduce_pvm_side(x, side, by, units, price, revenue, notes):
    """pvm()'s _pvm_side for a dask frame: each row's units and amount
    (units * price where the amount is that) on the cluster, summed there
    by member."""
    role = 'actuals' if side == 'actual' else 'budget'
    ddf, head = reduce_member_head(x, role)
    u, p, r = _pvm_columns(head, side, by, units, price, revenue, notes)
    fmt = head.attrs['number_format']

    def prepare(part):
        part = part.copy(deep=False)
        part.attrs['number_format'] = fmt
        return _pvm_member_rows(part, by, u, p, r).reset_index()

    names = list(by) + ['units', 'amount']
    sums = reduce_sums(ddf, prepare, names, [list(by)], ['units', 'amount'], head)[0]
    notes.append(reduce_note('the ' + role, sums, '%d members by %s' % (len(sums.frame), ', '.join(by))))
    g = sums.frame.set_index(list(by))
    return _pvm_summed(g, None, side, by, u, p, r, notes)


def reduce_distinct(ddf, head, cols):
    """col -> (its distinct values, the frame's rows), counted on the
    cluster for the columns whose first rows do not already hold more
    than a dimension's members."""
    import dask

    todo = [c for c in cols if head[c].nunique(dropna=True) <= EXPLAIN_MAX_MEMBERS]
    got = dask.compute(ddf.shape[0], *[ddf[c].nunique(dropna=True) for c in todo])
    rows = int(got[0])
    out = {c: (int(head[c].nunique(dropna=True)), rows) for c in cols}
    out.update({c: (int(n), rows) for c, n in zip(todo, got[1:])})
    return out


def reduce_explain_side(ddf, head, acct, amount, scen, dims, side, words, notes):
    """explain()'s ledgers (side -> _Ledger) of a dask detail: its amounts
    summed on the cluster by account (and scenario), and by account and
    member of each dimension, in one pass."""
    keys = [acct] + ([scen] if scen is not None else [])
    cols = list(dict.fromkeys(keys + list(dims)))
    fmt = head.attrs['number_format']
    amt = '\x00amount'

    def prepare(part):
        import pandas as pd

        part = part.copy(deep=False)
        part.attrs['number_format'] = fmt
        x = _ledger_values(part, amount)
        out = pd.concat([part[c] for c in cols] + [x], axis=1, ignore_index=True)
        out.columns = pd.Index(cols + [amt], dtype=object, tupleize_cols=False)
        return out

    groupings = [keys] + [list(dict.fromkeys(keys + [dim])) for dim in dims]
    sums = reduce_sums(ddf, prepare, cols + [amt], groupings, [amt], head)
    what = 'account' + (' × scenario' if scen is not None else '')
    notes.append(
        reduce_note(
            words,
            sums[0],
            ', '.join(
                ['%d %s rows' % (len(sums[0].frame), what)]
                + ['%d %s × %s rows' % (len(s.frame), what, dim) for s, dim in zip(sums[1:], dims)]
            ),
        )
    )
    tables = [s.frame for s in sums]
    if scen is None:
        parts = {side: tables}
    else:
        masks = [_scenario_sides(t[scen]) for t in tables]
        parts = {s: [t[m == s].reset_index(drop=True) for t, m in zip(tables, masks)] for s in ('actual', 'budget')}
    out = {}
    for s, (total, *by_dim) in parts.items():
        out[s] = _Ledger(
            total[acct],
            total[amt].to_numpy(dtype=float),
            {dim: (t[acct], t[dim], t[amt].to_numpy(dtype=float)) for dim, t in zip(dims, by_dim)},
        )
    return out
