# What a cell gives the variance report (sent with kernel.py): the table
# its last variance() call returned, whole, the bars and figure of its
# last bridge(), and the tables of its last pvm() and explain() (each an
# analysis with a sheet of its own in the workbook). The kernel sends them with the cell's result, so the
# session's record holds them and a report can be written from the record
# alone (quarry export, rerun --report) in a fresh sandbox. Only the
# calls' own results are kept: a frame derived from one (v[v.material])
# is the cell's business, not the report's.
import functools
import math

REPORT_LABEL_KEEP = 1001  # characters of a label carried: one more than a report shows (TEXT_MAX)
REPORT_NOTES_KEEP = 500  # notes carried
REPORT_MAX_BYTES = 40 << 20  # of one cell's report data: a frame is capped at 64 MiB
REPORT_ANALYSIS_ROWS = 5000  # rows of an analysis carried (a pvm() of many products); the Total row kept
REPORT_ANALYSES = ('pvm', 'explain')


class _ReportCalls:
    variance = None
    bridge = None
    analyses: dict = {}


_report_calls = _ReportCalls()


def reported(variance_fn, bridge_fn):
    """variance() and bridge() as the user's code calls them: the same
    functions, their results remembered for the cell's report."""

    @functools.wraps(variance_fn)
    def variance_call(*args, **kwargs):
        out = variance_fn(*args, **kwargs)
        _report_calls.variance = out
        return out

    @functools.wraps(bridge_fn)
    def bridge_call(*args, **kwargs):
        fig = bridge_fn(*args, **kwargs)
        _report_calls.bridge = fig
        return fig

    return variance_call, bridge_call


def analysis_reported(kind, fn):
    """An analysis (pvm, explain) as the user's code calls it: its result
    remembered for the cell's report."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        out = fn(*args, **kwargs)
        _report_calls.analyses = {**_report_calls.analyses, kind: out}
        return out

    return call


def install_reported(ns):
    """Puts the remembering variance(), bridge() and analyses in the
    user's namespace, where the kernel defined them."""
    if callable(ns.get('variance')) and callable(ns.get('bridge')):
        ns['variance'], ns['bridge'] = reported(ns['variance'], ns['bridge'])
    for kind in REPORT_ANALYSES:
        if callable(ns.get(kind)):
            ns[kind] = analysis_reported(kind, ns[kind])


def report_of_cell(keep=True):
    """The cell's report data (None when the cell called neither), taken
    before its figures are saved; the calls are forgotten either way."""
    v, fig, analyses = _report_calls.variance, _report_calls.bridge, _report_calls.analyses
    _report_calls.variance = _report_calls.bridge = None
    _report_calls.analyses = {}
    if not keep or (v is None and fig is None and not analyses):
        return None
    out, notes = {}, []
    if v is not None:
        try:
            out['variance'] = variance_record(v)
        except Exception as e:
            notes.append(
                'the variance table could not be kept for the report: %s: %s' % (type(e).__name__, str(e)[:200])
            )
    if fig is not None:
        try:
            b = bridge_record(fig)
            if b is None:
                notes.append("the bridge's figure was closed before the cell ended: the report has no chart")
            else:
                out['bridge'] = b
        except Exception as e:
            notes.append('the bridge could not be kept for the report: %s: %s' % (type(e).__name__, str(e)[:200]))
    for kind in REPORT_ANALYSES:
        if kind in analyses:
            try:
                out.setdefault('analyses', []).append(analysis_record(kind, analyses[kind]))
            except Exception as e:
                notes.append(
                    'the %s() table could not be kept for the report: %s: %s' % (kind, type(e).__name__, str(e)[:200])
                )
    if notes:
        out['notes'] = notes
    return out or None


def analysis_record(kind, df):
    """An analysis's table as the report reads it: its columns, its rows
    (numbers as numbers, text as text; at most REPORT_ANALYSIS_ROWS, a last
    Total row kept), how many it had, its notes and its method."""
    cols = [_label(c) for c in df.columns]
    numeric = [df[c].dtype.kind in 'biuf' for c in df.columns]
    values = df.to_numpy(dtype=object)
    n = len(values)
    keep = list(range(min(n, REPORT_ANALYSIS_ROWS)))
    if n > REPORT_ANALYSIS_ROWS and str(values[-1][0]) == 'Total':
        keep[-1] = n - 1
    rows = [[_finite(x) if num else _label(x) for x, num in zip(values[i], numeric, strict=True)] for i in keep]
    a = df.attrs
    return {
        'kind': kind,
        'columns': cols,
        'numeric': numeric,
        'rows': rows,
        'total_rows': n,
        'notes': [_label(x) for x in list(a.get('notes') or [])[:REPORT_NOTES_KEEP]],
        'method': _label(a.get('method') or ''),
    }


def _finite(x):
    try:
        f = float(x)
    except TypeError, ValueError:
        return None
    return f if math.isfinite(f) else None


def _label(x):
    if x is None or (isinstance(x, float) and x != x):
        return ''
    s = str(x)
    return s if len(s) <= REPORT_LABEL_KEEP else s[:REPORT_LABEL_KEEP]


def variance_record(v):
    """The table as the report reads it; rows says how many lines it had
    when they did not all fit (the report says so)."""
    labels = [c for c in v.attrs.get('labels', []) if c in v.columns] or [v.columns[0]]
    cols = {c: v[c].tolist() for c in ('kind', 'actual', 'budget', 'variance', 'variance_pct', 'effect', 'material')}
    label_cols = [v[c].tolist() for c in labels]
    comps = v.attrs.get('comparisons') if isinstance(v.attrs.get('comparisons'), dict) else {}
    comp_cols = {
        name: [v[c].tolist() for c in c_spec.get('columns', [])]
        for name, c_spec in comps.items()
        if len(c_spec.get('columns', [])) == 5 and all(c in v.columns for c in c_spec['columns'])
    }
    fx = (
        {c: v[c].tolist() for c in ('variance_cc', 'fx_effect')}
        if {'variance_cc', 'fx_effect'} <= set(v.columns)
        else None
    )
    n = len(v)
    lines, size = [], 0
    last_total = n > 0 and str(label_cols[-1][-1]) == 'Total'
    for i in range(n):
        total = last_total and i == n - 1
        if size > REPORT_MAX_BYTES and not total:
            continue
        ln = {
            'label': [_label(lc[i]) for lc in label_cols],
            'kind': _label(cols['kind'][i]),
            'actual': _finite(cols['actual'][i]) or 0.0,
            'budget': _finite(cols['budget'][i]) or 0.0,
            'variance': _finite(cols['variance'][i]) or 0.0,
            'pct': _finite(cols['variance_pct'][i]),
            'effect': _label(cols['effect'][i]),
            'material': bool(cols['material'][i]),
        }
        if total:
            ln['total'] = True
        if comp_cols:
            ln['comparisons'] = {
                name: {
                    'amount': _finite(c[0][i]) or 0.0,
                    'variance': _finite(c[1][i]) or 0.0,
                    'pct': _finite(c[2][i]),
                    'effect': _label(c[3][i]),
                    'material': bool(c[4][i]),
                }
                for name, c in comp_cols.items()
            }
        if fx:
            ln['fx'] = {'variance_cc': _finite(fx['variance_cc'][i]), 'fx_effect': _finite(fx['fx_effect'][i])}
        size += sum(len(x) for x in ln['label']) + 160 + 120 * len(comp_cols) + (60 if fx else 0)
        lines.append(ln)
    a = v.attrs
    srcs = a.get('sources') if isinstance(a.get('sources'), dict) else {}
    mabs = _finite(a.get('material_abs'))
    out = {
        'labels': [_label(c) for c in labels],
        'lines': lines,
        'rows': n,
        'notes': [_label(x) for x in list(a.get('notes') or [])[:REPORT_NOTES_KEEP]],
        'periods': [_label(x) for x in list(a.get('periods') or [])],
        'period': _label(a.get('period') or ''),
        'material_pct': _finite(a.get('material_pct')) or 0.0,
        'currency': _label(a.get('currency') or ''),
        'bottom_line': _label(a.get('bottom_line') or ''),
        'sources': {str(k): _label(x) for k, x in srcs.items()},
        'title': [_label(x) for x in list(a.get('title') or [])],
    }
    if mabs is not None:
        out['material_abs'] = mabs
    if comp_cols:
        out['comparisons'] = list(comp_cols)
    rates = a.get('fx') if isinstance(a.get('fx'), dict) else {}
    if fx and isinstance(rates.get('rates'), dict):
        out['fx'] = {
            'currencies': [_label(x) for x in list(rates.get('currencies') or [])[:REPORT_NOTES_KEEP]],
            'rates': {
                _label(k): {'actual': _finite(r.get('actual')), 'budget': _finite(r.get('budget'))}
                for k, r in list(rates['rates'].items())[:REPORT_NOTES_KEEP]
                if isinstance(r, dict)
            },
        }
    return out


def bridge_record(fig):
    import sys

    plt = sys.modules.get('matplotlib.pyplot')
    if plt is None or not hasattr(fig, 'number') or fig.number not in plt.get_fignums():
        return None
    bars = getattr(fig, 'bridge_data', None)
    w, h = fig.get_size_inches()
    out = {'figure': plt.get_fignums().index(fig.number), 'aspect': float(w) / float(h), 'bars': []}
    if bars is not None:
        out['bottom_line'] = _label(bars.attrs.get('bottom_line') or '')
        out['gap'] = _finite(bars.attrs.get('gap')) or 0.0
        for b in bars.to_dict('records'):
            out['bars'].append(
                {
                    'label': _label(b.get('label')),
                    'what': _label(b.get('what')),
                    'value': _finite(b.get('value')) or 0.0,
                    'start': _finite(b.get('start')) or 0.0,
                    'end': _finite(b.get('end')) or 0.0,
                    'effect': _label(b.get('effect')),
                    'lines': int(b.get('lines') or 0),
                }
            )
    return out
