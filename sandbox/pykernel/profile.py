# File profiling for quarry, run inside the sandbox by the kernel in its own
# module namespace (not the user's). The host sends every profile*.py file as
# one program; profile(path) returns a dict shaped like kernel.Profile. Each
# reader profiles with the pandas call it reports in 'read', so the model's
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

_COMPRESSED = (('.gz', b'\x1f\x8b', 'gzip'), ('.bz2', b'BZh', 'bz2'), ('.xz', b'\xfd7zXZ\x00', 'xz'),
               ('.zip', b'PK\x03\x04', 'zip'))
_EXCEL = ('.xlsx', '.xlsm', '.xls', '.ods')
_STATS = {'.dta': 'stata', '.sav': 'spss', '.zsav': 'spss', '.por': 'spss', '.sas7bdat': 'sas', '.xpt': 'sas'}


def short(v):
    s = str(v)
    return s if len(s) <= CELL else s[:CELL - 1] + '\u2026'


def file_kind(path, head):
    """(kind, compression) of a file from its name and first bytes; a name
    without an extension (or one of digits: data.2024) goes by the bytes."""
    if is_duckdb(head):
        return 'duckdb', None
    name = os.path.basename(path).lower()
    compression = None
    for ext, magic, comp in _COMPRESSED:
        if name.endswith(ext) and head.startswith(magic):
            compression, name = comp, name[:-len(ext)]
            break
    ext = os.path.splitext(name)[1]
    if not any(c.isalpha() for c in ext):
        return kind_by_content(path, head)
    if compression is None:
        if ext in _EXCEL or head[:4] == b'PK\x03\x04' and ext not in ('.csv', '.txt', '.tsv'):
            return 'excel', None
        if head[:8] == _OLE:
            return 'excel', None
        if ext in _STATS:
            return _STATS[ext], None
        if ext == '.parquet' or head[:4] == b'PAR1':
            return 'parquet', None
        if ext in ('.feather', '.arrow', '.ipc') or head[:6] == b'ARROW1' or head[:4] == b'FEA1':
            return 'feather', None
        if ext in ('.sqlite', '.sqlite3', '.db') or head.startswith(_SQLITE):
            return 'sqlite', None
    if ext in ('.json', '.jsonl', '.ndjson'):
        return 'json', compression
    if compression is None and b'\x00' in head[:8192] and not (bom_encoding(head) or utf16_without_bom(head)):
        return 'other', None
    return 'csv', compression


_OLE = b'\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1'
_SQLITE = b'SQLite format 3\x00'


def kind_by_content(path, head):
    """(kind, compression) from the first bytes alone: magic numbers for
    binary formats, and for text (or compressed text) JSON when it opens
    with '{' or '[', else a delimited table."""
    if head[:4] == b'PAR1':
        return 'parquet', None
    if head.startswith(_SQLITE):
        return 'sqlite', None
    if head[:6] == b'ARROW1' or head[:4] == b'FEA1':
        return 'feather', None
    if head[:8] == _OLE:
        return 'excel', None
    stats = stats_by_magic(head)
    if stats:
        return stats[0], None
    compression = None
    if head[:4] == b'PK\x03\x04':
        import zipfile
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except zipfile.BadZipFile:
            names = set()
        if '[Content_Types].xml' in names or 'mimetype' in names or any(n.startswith('xl/') for n in names):
            return 'excel', None
        compression = 'zip'
    else:
        compression = next((c for _, m, c in _COMPRESSED if head.startswith(m)), None)
    text = head
    if compression:
        try:
            with open_text(path, compression) as f:
                text = f.read(8192)
        except Exception:
            return 'csv', compression  # the profile reports the damage
    elif b'\x00' in head[:8192] and not (bom_encoding(head) or utf16_without_bom(head)):
        return 'other', None
    first = text.lstrip(b'\xef\xbb\xbf \t\r\n')[:1]
    return ('json' if first in (b'{', b'[') else 'csv'), compression


def stats_by_magic(head):
    """(kind, extension) of a Stata, SPSS or SAS file from its first bytes."""
    if head.startswith(b'<stata_dta>') or len(head) > 3 and 102 <= head[0] <= 115 and head[1] in (1, 2) \
            and head[2] == 1:
        return 'stata', 'dta'
    if head[:4] in (b'$FL2', b'$FL3'):
        return 'spss', 'sav'
    if head[12:16] == b'\xc2\xea\x81\x60':
        return 'sas', 'sas7bdat'
    if head.startswith(b'HEADER RECORD*******LIB'):
        return 'sas', 'xpt'
    return None


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
_ARG_ORDER = ('sheet_name', 'sep', 'colspecs', 'quotechar', 'skipinitialspace', 'encoding', 'encoding_errors', 'skiprows',
              'header', 'names', 'usecols', 'index_col', 'nrows', 'comment', 'decimal', 'thousands',
              'na_values', 'dtype', 'parse_dates', 'date_format', 'on_bad_lines', 'lines', 'compression')


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
        out.setdefault('notes', []).insert(0, 'large: a DataFrame of all of it needs about %s, more than half of the '
                                           'sandbox\'s %s memory; %s' % (size_text(est), size_text(limit),
                                                                          large_advice(out)))


def large_advice(out):
    """What to do with a file too large for pandas: sql() where DuckDB
    reads the file as it is, else columns or chunks."""
    kind, comp = out.get('kind'), out.get('compression')
    pieces = 'read only the columns you need (usecols=) or process it in chunks (chunksize=)'
    if kind == 'csv' and comp in (None, 'gzip'):
        opt = ", compression='gzip'" if comp and not out['path'].lower().endswith('.gz') else ''
        return "aggregate it with sql(), which reads it in pieces%s (read_csv('%s'%s)), or %s" % (
            ' and unpacks gzip itself' if comp else '', out['path'], opt, pieces)
    if kind in ('parquet', 'json') and not comp:
        return 'aggregate it with sql(), which reads it in pieces, or ' + pieces
    if comp:
        return '%s; sql() cannot read %s-compressed files' % (pieces, comp)
    return pieces


def profile(path, limits=None):
    """limits may lower full_bytes and sample_rows (tests do, to sample a
    small file), and give the sandbox's memory_limit; other values from the
    host are clamped to the defaults."""
    lim = {'full_bytes': FULL_BYTES, 'sample_rows': SAMPLE_ROWS, 'memory_limit': 0}
    for k, v in (limits or {}).items():
        if k in ('full_bytes', 'sample_rows') and isinstance(v, int) and 0 < v < lim[k]:
            lim[k] = v
        elif k == 'memory_limit' and isinstance(v, int) and v > 0:
            lim[k] = v
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        head = f.read(SNIFF_BYTES)
    out = {'name': os.path.basename(path), 'path': path, 'size': size, 'header_row': -1, 'rows': 0}
    kind, compression = file_kind(path, head)
    out['kind'] = kind
    try:
        if size == 0:
            raise ValueError('the file is empty')
        if kind == 'csv':
            profile_csv(path, size, out, lim, compression)
        elif kind == 'excel':
            profile_excel(path, size, out, lim)
        elif kind == 'json':
            profile_json(path, size, out, lim, compression)
        elif kind == 'parquet':
            profile_parquet(path, size, out, lim)
        elif kind == 'feather':
            profile_feather(path, size, out, lim)
        elif kind in ('stata', 'spss', 'sas'):
            profile_stats(path, kind, out, lim, head)
        elif kind == 'sqlite':
            profile_sqlite(path, size, out, lim)
        elif kind == 'other':
            raise ValueError('the file is neither text nor a data format quarry reads (it starts with %s)'
                             % head[:8].hex(' '))
        elif kind == 'duckdb':
            profile_duckdb(path, size, out, lim)
    except Exception as e:
        out['error'] = explain(e)
        out.pop('read', None)
    return out


def explain(e):
    """A profiling failure in words: the known causes say what to do."""
    msg = str(e)
    low = msg.lower()
    if 'encrypt' in low or 'password' in low:
        return 'the file is password-protected: remove the password (save an unprotected copy) and attach that'
    damaged = ('not a zip file', 'ended before', 'crc check failed', 'invalid data stream', 'while decompressing',
               'magic bytes', 'thrift', 'footer', 'truncated', 'unexpected end')
    if type(e).__name__ in ('BadZipFile', 'EOFError') or any(d in low for d in damaged):
        return 'the file is damaged or incomplete (%s): export or download it again' % msg[:200]
    if type(e).__name__ in ('ReadstatError', 'PyreadstatError'):
        return 'the file could not be read as %s (%s): export it again from the program that made it' % (
            'a statistics file', msg[:200])
    return '%s: %s' % (type(e).__name__, msg[:300])
