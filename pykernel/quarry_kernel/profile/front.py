# File profiling for quarry, run inside the sandbox by the kernel in its own
# module namespace (not the user's). The host sends every profile/*.py file as
# one program; profile(path, limits, kind) returns a dict shaped like
# kernel.Profile. The host has told what the file is (kind: its row of the
# table of file kinds); the reader the row names profiles it with the pandas
# call it reports in 'read', so the model's
# first read of the file is the one that worked here. Everything is bounded:
# large files are profiled from a sample and flagged when a DataFrame of
# them would not fit the sandbox's memory.
import os

SNIFF_BYTES = 256 << 10
FULL_BYTES = 64 << 20
SAMPLE_ROWS = 200000
HEAD_ROWS = 5
EXAMPLES = 3
MAX_COLUMNS = 200
CELL = 60
# A file is "large" when pandas would need more than this share of the
# sandbox's memory for it: reading needs about as much again while it runs.
LARGE_SHARE = 0.5

# The profile reader of each kind in the host's table (package filekind),
# by the name its rows give as 'reader'; each module adds its own. The host
# sends the file's row with the request and the kernel reports these names
# when it is ready, so a test sees the two sides disagree.
READERS = {}  # type: dict[str, object]

# KNOWN holds the row the host sent for each file it had profiled, by real
# path, so code in the kernel that is handed one of those files (variance()
# reading a path) reads it as its kind without deciding the kind again.
KNOWN = {}  # type: dict[str, dict]


def short(v):
    s = str(v)
    return s if len(s) <= CELL else s[: CELL - 1] + '\u2026'


def columns_of(df):
    cols = []
    for name in list(df.columns)[:MAX_COLUMNS]:
        s = df[name]
        if isinstance(s, type(df)):  # duplicate column names
            s = s.iloc[:, 0]
        ex = []
        try:
            uniq = s.dropna().unique()[:EXAMPLES]
        except TypeError:  # unhashable values (lists, dicts from JSON)
            uniq = s.dropna().head(EXAMPLES).tolist()
        for v in uniq:
            ex.append(short(v))
        cols.append({'name': short(name), 'dtype': str(s.dtype), 'nulls': int(s.isna().sum()), 'examples': ex})
    return cols


def head_of(df):
    part = df.iloc[:HEAD_ROWS, :MAX_COLUMNS]
    return [[short(v) for v in row] for row in part.itertuples(index=False, name=None)]


# The order keyword arguments are reported in, most telling first.
_ARG_ORDER = (
    'sheet_name',
    'sep',
    'colspecs',
    'quotechar',
    'skipinitialspace',
    'encoding',
    'encoding_errors',
    'skiprows',
    'header',
    'names',
    'usecols',
    'index_col',
    'nrows',
    'comment',
    'decimal',
    'thousands',
    'na_values',
    'dtype',
    'parse_dates',
    'date_format',
    'on_bad_lines',
    'lines',
    'compression',
)


def read_spec(func, kw):
    """The call that loaded the file: a pandas (or pyreadstat) function and
    its keyword arguments, all plain JSON values; the host renders it."""
    order = {k: i for i, k in enumerate(_ARG_ORDER)}
    args = [{'name': k, 'value': kw[k]} for k in sorted(kw, key=lambda k: (order.get(k, 99), k))]
    return {'func': func, 'args': args}


def size_text(n):
    """A byte count as the host writes it (kernel.FormatSize), so the model
    and the user read one unit: 512 B, 1.5 KiB, 12 MiB, 2 GiB."""
    if -1024 < n < 1024:
        return '%d B' % n
    v, i = n / 1024.0, 0
    while abs(v) >= 1024 and i < 4:
        v, i = v / 1024.0, i + 1
    s = '%.1f' % v
    if s.endswith('.0'):
        s = s[:-2]
    return '%s %s' % (s, ('KiB', 'MiB', 'GiB', 'TiB', 'PiB')[i])


def memory_limit(lim):
    """The sandbox's memory limit: as the host said, else the cgroup's."""
    if lim.get('memory_limit'):
        return lim['memory_limit']
    for p in ('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'):
        try:
            with open(p) as f:
                v = f.read().strip()
            if v.isdigit() and int(v) < 1 << 50:
                return int(v)
        except OSError:
            pass
    return 0


def judge_memory(out, df, rows_total, lim, col_scale=1.0):
    """memory_estimate: bytes a DataFrame of the whole file takes, scaled
    from the rows (and, for a very wide table, the columns) read; large when
    that is over LARGE_SHARE of the limit."""
    if df is None or not len(df):
        return
    try:
        part = df.iloc[:20000]  # deep sizes of object columns cost time; a part tells
        per_row = part.memory_usage(deep=True, index=False).sum() / len(part)
    except Exception:
        return
    est = int(per_row * max(rows_total, len(df)) * col_scale)
    out['memory_estimate'] = est
    limit = memory_limit(lim)
    if limit:
        out['memory_limit'] = limit
    if limit and est > LARGE_SHARE * limit:
        out['large'] = True
        out.setdefault('notes', []).insert(
            0,
            'large: a DataFrame of all of it needs about %s, more than half of the '
            'sandbox\'s %s memory; %s' % (size_text(est), size_text(limit), large_advice(out)),
        )


def large_advice(out):
    """What to do with a file too large for pandas: sql() where DuckDB
    reads the file as it is, else columns or chunks."""
    kind, comp = out.get('kind'), out.get('compression')
    pieces = 'read only the columns you need (usecols=) or process it in chunks (chunksize=)'
    if kind == 'csv' and comp in (None, 'gzip'):
        opt = ", compression='gzip'" if comp and not out.get('compression_named') else ''
        return "aggregate it with sql(), which reads it in pieces%s (read_csv('%s'%s)), or %s" % (
            ' and unpacks gzip itself' if comp else '',
            out['path'],
            opt,
            pieces,
        )
    if kind in ('parquet', 'json') and not comp:
        return 'aggregate it with sql(), which reads it in pieces, or ' + pieces
    if comp:
        return '%s; sql() cannot read %s-compressed files' % (pieces, comp)
    return pieces


def profile(path, limits=None, kind=None):
    """kind is the file's row as the host sends it: name, reader, reads
    (the read calls it may report) and, for a packed text file,
    compression and compression_named (the name says it: pandas infers it). limits may lower full_bytes and sample_rows
    (tests do, to sample a small file), and give the sandbox's
    memory_limit; other values from the host are clamped to the defaults."""
    lim = {'full_bytes': FULL_BYTES, 'sample_rows': SAMPLE_ROWS, 'memory_limit': 0}
    for k, v in (limits or {}).items():
        if k in ('full_bytes', 'sample_rows') and isinstance(v, int) and 0 < v < lim[k]:
            lim[k] = v
        elif k == 'memory_limit' and isinstance(v, int) and v > 0:
            lim[k] = v
    kind = kind or {}
    if kind:
        KNOWN[os.path.realpath(path)] = kind
    size = os.path.getsize(path)
    out = {
        'name': os.path.basename(path),
        'path': path,
        'size': size,
        'header_row': -1,
        'rows': 0,
        'kind': kind.get('reader', ''),
    }
    if kind.get('compression'):
        out['compression'] = kind['compression']
        out['compression_named'] = bool(kind.get('compression_named'))
    try:
        reader = READERS.get(kind.get('reader'))
        if reader is None:
            raise ValueError('the kernel has no profile reader for %s' % kind.get('name', 'this file'))
        if size == 0:
            raise ValueError('the file is empty')
        reader(path, size, out, lim, kind)
    except Exception as e:
        out['error'] = explain(e)
        out.pop('read', None)
    out.pop('compression_named', None)
    return out


def explain(e):
    """A profiling failure in words: the known causes say what to do."""
    msg = str(e)
    low = msg.lower()
    if 'encrypt' in low or 'password' in low:
        return 'the file is password-protected: remove the password (save an unprotected copy) and attach that'
    damaged = (
        'not a zip file',
        'ended before',
        'crc check failed',
        'invalid data stream',
        'while decompressing',
        'magic bytes',
        'thrift',
        'footer',
        'truncated',
        'unexpected end',
    )
    if type(e).__name__ in ('BadZipFile', 'EOFError') or any(d in low for d in damaged):
        return 'the file is damaged or incomplete (%s): export or download it again' % msg[:200]
    if type(e).__name__ in ('ReadstatError', 'PyreadstatError'):
        return 'the file could not be read as %s (%s): export it again from the program that made it' % (
            'a statistics file',
            msg[:200],
        )
    return '%s: %s' % (type(e).__name__, msg[:300])
