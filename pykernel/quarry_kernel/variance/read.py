# The inputs of variance() (sent with kernel.py): a DataFrame as it is, or a
# file read the way the file profile reads it (profile/*.py: its kind, its
# encoding, its dialect, its sheet, its read call). A delimited file or a
# sheet is read as a grid of cells with nothing dropped: an exported report
# keeps its title rows, section headers, totals and footer, which variance()
# needs to see and the profile's table finder would leave out. A dask
# frame comes here already reduced on its cluster (cluster.py's Reduced).
import os

VARIANCE_MAX_BYTES = 512 << 20  # a budget or an export is far smaller; more is a mistake


class Input:
    """One input: frame is a DataFrame; raw says its header is still among
    its rows (a grid read with header=None); name says which it is in notes."""

    def __init__(self, frame, name, raw, path=None):
        self.frame, self.name, self.raw, self.path = frame, name, raw, path
        self.rows = None  # a dask frame's sums (cluster.py): how many of its rows each row sums


def read_input(x, role):
    """role: 'actuals' or 'budget', for the errors."""
    import pandas as pd

    if isinstance(x, Reduced):
        inp = read_input(x.frame, role)
        inp.rows = x.rows
        return inp
    if reduce_is_dask(x):
        raise TypeError(
            'the %s: a dask DataFrame is summed on the cluster as the actuals, budget, forecast= and prior= of '
            'variance(), the detail of explain() and the sides of pvm(); here pass a pandas one (.compute())' % role
        )
    if isinstance(x, pd.Series):
        x = x.reset_index() if not isinstance(x.index, pd.RangeIndex) else x.to_frame()
    if isinstance(x, pd.DataFrame):
        if x.shape[1] == 0 or x.shape[0] == 0:
            raise ValueError('the %s are an empty DataFrame (%d rows, %d columns)' % (role, x.shape[0], x.shape[1]))
        if not isinstance(x.index, pd.RangeIndex) and any(n is not None for n in x.index.names):
            x = x.reset_index()  # lines as the index (after a groupby): they are the labels
        return Input(x, 'the %s' % role, False)
    if isinstance(x, (str, os.PathLike)):
        path = _existing(os.fspath(x), role)
        return _read_path(path, role)
    raise TypeError('variance() takes the %s as a DataFrame or a file path, not %s' % (role, type(x).__name__))


def _existing(path, role):
    if '\x00' in path:
        raise ValueError('the %s path contains a NUL character' % role)
    tries = [path] if os.path.isabs(path) else [path, os.path.join('/data', path)]
    for p in tries:
        if os.path.isfile(p):
            return p
        if os.path.isdir(p):
            raise ValueError('the %s path %r is a folder, not a file' % (role, p))
    try:
        here = sorted(os.listdir('/data'))[:20]
    except OSError:
        here = []
    raise FileNotFoundError(
        'the %s file %r does not exist%s'
        % (role, path, (' (the attached files in /data: %s)' % ', '.join(here)) if here else '')
    )


def _read_path(path, role):
    import pandas as pd

    name = 'the %s (%s)' % (role, os.path.basename(path))
    size = os.path.getsize(path)
    if size == 0:
        raise ValueError('%s: the file is empty' % name)
    if size > VARIANCE_MAX_BYTES:
        raise ValueError(
            '%s: the file is %s, too large for a budget or an export; aggregate it first (sql()) and '
            'pass the DataFrame' % (name, profile_mod.size_text(size))
        )
    row = _row_of(path, name)
    kind, compression = row.get('reader', ''), row.get('compression') or None
    if kind == 'csv':
        return Input(_text_grid(path, size, compression, name), name, True, path)
    if kind in ('sqlite', 'duckdb'):
        raise ValueError(
            '%s is a database: query the lines with sql(..., db=%r) and pass the DataFrame'
            % (name, os.path.splitext(os.path.basename(path))[0])
        )
    prof = profile_mod.profile(path, None, row)
    if prof.get('error'):
        raise ValueError('%s: %s' % (name, prof['error']))
    spec = prof.get('read') or {}
    args = {a['name']: a['value'] for a in spec.get('args', [])}
    if kind == 'excel':
        keep = {k: args[k] for k in ('sheet_name',) if k in args}
        grid = pd.read_excel(path, header=None, **keep)
        if grid.empty:
            raise ValueError('%s: the sheet holds no cells' % name)
        return Input(grid, name, True, path)
    frame = _call(spec.get('func', ''), path, args)
    if frame.empty:
        raise ValueError('%s: the file holds no rows' % name)
    return Input(frame, name, False, path)


def _row_of(path, name):
    """The file's row of the host's table of file kinds (kind.py)."""
    try:
        return file_row(path)
    except ValueError as e:
        raise ValueError('%s: %s' % (name, e)) from None


def _call(func, path, args):
    """Runs the profile's read call ('pd.read_parquet', 'pyreadstat.read_dta')."""
    import pandas as pd

    mod, _, fn = func.partition('.')
    if mod == 'pd':
        out = getattr(pd, fn)(path, **args)
    elif mod == 'pyreadstat':
        import pyreadstat

        out = getattr(pyreadstat, fn)(path, **args)
    else:
        raise ValueError('no read call for %s' % path)
    return out[0] if isinstance(out, tuple) else out


def _text_grid(path, size, compression, name):
    """Every row of a delimited text file as cells (strings, '' for none),
    in the encoding and dialect the profile finds."""
    import pandas as pd

    lim = {'full_bytes': profile_mod.FULL_BYTES, 'sample_rows': profile_mod.SAMPLE_ROWS, 'memory_limit': 0}
    src = profile_mod.TextSource(path, size, compression, lim)
    enc, strict = profile_mod.detect_encoding(src.chunks)
    with profile_mod.open_text(path, compression) as f:
        data = f.read(VARIANCE_MAX_BYTES + 1)
    if len(data) > VARIANCE_MAX_BYTES:
        raise ValueError(
            '%s: unpacked, the file is larger than %s; aggregate it first (sql())'
            % (name, profile_mod.size_text(VARIANCE_MAX_BYTES))
        )
    text = data.decode(enc, errors='strict' if strict else 'replace').lstrip('\ufeff')
    if not text.strip():
        raise ValueError('%s: the file holds only blank lines' % name)
    delim, quote, spaced = profile_mod.sniff(text)
    if delim == profile_mod.WHITESPACE:
        lines = text.splitlines()
        spans = profile_mod.column_spans([l for l in lines if l.strip()])
        rows = [[l[a:b].strip() for a, b in spans] if l.strip() else [] for l in lines]
    else:
        rows = profile_mod.parse(text, delim, quote, spaced)
        if rows is None:
            raise ValueError('%s: the file could not be split into cells' % name)
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        raise ValueError('%s: the file holds no cells' % name)
    return pd.DataFrame([r + [''] * (width - len(r)) for r in rows], dtype=object)
