# File profiling for quarry, run inside the sandbox by the kernel in its own
# module namespace (not the user's). profile(path) returns a dict shaped like
# kernel.Profile. Everything is bounded: a sample for sniffing, one streaming
# pass for row count and encoding, pandas on at most FULL_BYTES or SAMPLE_ROWS.
import codecs
import csv
import datetime
import io
import os
import re

SNIFF_BYTES = 256 << 10
FULL_BYTES = 64 << 20
SAMPLE_ROWS = 200000
HEAD_ROWS = 5
EXAMPLES = 3
MAX_COLUMNS = 200
CELL = 60

_NUM_COMMA = re.compile(r'^[+-]?(\d{1,3}(\.\d{3})+|\d+)?,\d+$')
_NUM_DOT = re.compile(r'^[+-]?(\d{1,3}(,\d{3})+|\d+)?\.\d+$')
_THOUSANDS_DOT = re.compile(r'^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$')
_THOUSANDS_COMMA = re.compile(r'^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$')
# Text dates read_csv should parse, tried in order. The two slashed forms
# are ambiguous: a column that fits both gets no format rather than a guess.
_DATE_FORMATS = ('%Y-%m-%d', '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%d.%m.%Y',
                 '%d.%m.%Y %H:%M', '%d.%m.%Y %H:%M:%S', '%d/%m/%Y', '%m/%d/%Y')
_DATE_SHAPE = re.compile(r'^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}([ T][\d:]{4,8})?$')


def short(v):
    s = str(v)
    return s if len(s) <= CELL else s[:CELL - 1] + '\u2026'


def kind_of(path, head):
    ext = os.path.splitext(path)[1].lower()
    if ext in ('.xlsx', '.xlsm', '.xls', '.ods') or head[:4] == b'PK\x03\x04' and ext not in ('.csv', '.txt', '.tsv'):
        return 'excel'
    if ext in ('.json', '.jsonl', '.ndjson'):
        return 'json'
    if ext == '.parquet' or head[:4] == b'PAR1':
        return 'parquet'
    if b'\x00' in head[:8192] and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return 'other'
    return 'csv'


def scan(path, size):
    """One streaming pass: line count and whether the whole file is UTF-8."""
    lines = 0
    utf8 = True
    dec = codecs.getincrementaldecoder('utf-8')('strict')
    last = b''
    with open(path, 'rb') as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            lines += b.count(b'\n')
            last = b
            if utf8:
                try:
                    dec.decode(b)
                except UnicodeDecodeError:
                    utf8 = False
    if utf8:
        try:
            dec.decode(b'', final=True)
        except UnicodeDecodeError:
            utf8 = False
    if last and not last.endswith(b'\n'):
        lines += 1
    return lines, utf8


def detect_encoding(head, utf8):
    if head.startswith(codecs.BOM_UTF8):
        return 'utf-8-sig'
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return 'utf-16'
    if utf8:
        return 'utf-8'
    try:
        head.decode('cp1252')
        return 'cp1252'
    except UnicodeDecodeError:
        return 'latin-1'


def sniff(text):
    """Picks the delimiter whose quote-aware field count is most consistent;
    ';', tab and '|' win near-ties over ',' (a ',' may be a decimal mark)."""
    lines = [l for l in text[:64 << 10].splitlines() if l.strip()][:200]
    if len(lines) > 1 and len(text) >= SNIFF_BYTES - 8:
        lines = lines[:-1]  # a cut last line would mislead the counts
    best = None
    for d in (';', '\t', '|', ','):
        counts = [len(r) for r in csv.reader(lines[:100], delimiter=d)]
        if not counts:
            continue
        mode = max(set(counts), key=counts.count)
        if mode < 2:
            continue
        cons = counts.count(mode) / len(counts)
        if best is None or cons > best[0] + 0.05:
            best = (cons, d)
    return (best[1] if best else ','), lines


def detect_decimal(lines, delim):
    """The decimal mark, and the thousands separator when the numbers use one
    and no number contradicts it (with thousands='.', a '3.5' would read as 35)."""
    comma = dot = 0
    seps = {'.': 0, ',': 0}
    clash = {'.': 0, ',': 0}
    for row in csv.reader(lines[1:200], delimiter=delim):
        for cell in row:
            c = cell.strip()
            if delim != ',' and _NUM_COMMA.match(c):
                comma += 1
            elif _NUM_DOT.match(c):
                dot += 1
            if _THOUSANDS_DOT.match(c):
                seps['.'] += 1
            elif _NUM_DOT.match(c):
                clash['.'] += 1
            if _THOUSANDS_COMMA.match(c):
                seps[','] += 1
            elif _NUM_COMMA.match(c):
                clash[','] += 1
    decimal = ',' if comma > dot else '.'
    other = '.' if decimal == ',' else ','
    thousands = other if seps[other] and not clash[other] else None
    return decimal, thousands


def detect_dates(lines, delim, names):
    """{column name: strftime format} for text columns that hold dates in one
    format; read_csv then parses them (and keeps thousands='.' off them)."""
    rows = list(csv.reader(lines[1:200], delimiter=delim))
    found = {}
    for i, name in enumerate(names[:MAX_COLUMNS]):
        vals = [r[i].strip() for r in rows if i < len(r) and r[i].strip()]
        if not vals or not all(_DATE_SHAPE.match(v) for v in vals):
            continue
        fits = [f for f in _DATE_FORMATS if all(_fits(v, f) for v in vals)]
        if '%d/%m/%Y' in fits and '%m/%d/%Y' in fits:
            continue
        if fits and name not in found:
            found[name] = fits[0]
    return found


def _fits(v, fmt):
    try:
        datetime.datetime.strptime(v, fmt)
        return True
    except ValueError:
        return False


def _numeric(s, decimal):
    s = s.strip()
    if not s:
        return False
    if decimal == ',':
        s = s.replace('.', '').replace(',', '.')
    try:
        float(s)
        return True
    except ValueError:
        return False


def detect_header(lines, delim, decimal):
    rows = list(csv.reader(lines[:30], delimiter=delim))
    if len(rows) < 2:
        return True
    first, rest = rows[0], rows[1:]
    votes = 0
    for i, h in enumerate(first):
        col = [r[i] for r in rest if i < len(r) and r[i].strip()]
        if not col:
            continue
        later_numeric = sum(_numeric(v, decimal) for v in col) > len(col) / 2
        if later_numeric:
            votes += -1 if _numeric(h, decimal) else 1
    if votes:
        return votes > 0
    # All text: a header has distinct, non-empty names.
    names = [h.strip() for h in first]
    return all(names) and len(set(names)) == len(names)


def columns_of(df):
    cols = []
    for name in list(df.columns)[:MAX_COLUMNS]:
        s = df[name]
        if isinstance(s, type(df)):  # duplicate column names
            s = s.iloc[:, 0]
        ex = []
        for v in s.dropna().unique()[:EXAMPLES]:
            ex.append(short(v))
        cols.append({'name': short(name), 'dtype': str(s.dtype), 'nulls': int(s.isna().sum()), 'examples': ex})
    return cols


def head_of(df):
    return [[short(v) for v in row] for row in df.head(HEAD_ROWS).itertuples(index=False, name=None)]


def profile_csv(path, size, head, out, limits):
    import pandas as pd
    lines_total, utf8 = scan(path, size)
    enc = detect_encoding(head, utf8)
    text = head.decode(enc, errors='replace')
    delim, lines = sniff(text)
    decimal, thousands = detect_decimal(lines, delim)
    has_header = detect_header(lines, delim, decimal)
    out.update(encoding=enc, delimiter=delim, decimal=decimal, header_row=0 if has_header else -1)
    kw = dict(sep=delim, decimal=decimal, encoding=enc, header=0 if has_header else None,
              low_memory=False, on_bad_lines='skip')
    if thousands:
        kw['thousands'] = thousands
        out['thousands'] = thousands
    dates = {}
    if has_header:
        names = next(csv.reader(lines[:1], delimiter=delim), [])
        dates = detect_dates(lines, delim, names)
        if dates:
            kw['parse_dates'] = list(dates)
            kw['date_format'] = dates
    sampled = size > limits['full_bytes']
    if sampled:
        kw['nrows'] = limits['sample_rows']
    try:
        df = pd.read_csv(path, **kw)
    except UnicodeDecodeError:
        if enc != 'cp1252':
            raise
        # cp1252 leaves five bytes undefined; latin-1 decodes every byte.
        kw['encoding'] = out['encoding'] = 'latin-1'
        df = pd.read_csv(path, **kw)
    except ValueError:
        if 'parse_dates' not in kw:
            raise
        # A header name pandas spells differently: profile without dates
        # rather than not at all.
        del kw['parse_dates'], kw['date_format']
        dates = {}
        df = pd.read_csv(path, **kw)
    if sampled and len(df) == limits['sample_rows']:
        # Counted by newlines: quoted newlines inside fields make it an estimate.
        out['rows'] = max(lines_total - (1 if has_header else 0), len(df))
        out['notes'] = ['sampled: the file is %s, so dtypes, missing counts and examples come from '
                        'its first %d rows only; the row count %d is an estimate from counting lines'
                        % (_size(size), len(df), out['rows'])]
    else:
        out['rows'] = int(len(df))
    cols = columns_of(df)
    if dates:
        for c in cols:
            if c['name'] in dates and c['dtype'].startswith('datetime'):
                c['date_format'] = dates[c['name']]
    out['columns'] = cols
    out['head'] = head_of(df)


def _size(n):
    for unit in ('bytes', 'KB', 'MB', 'GB'):
        if n < 1024 or unit == 'GB':
            return '%d %s' % (n, unit) if unit == 'bytes' else '%.1f %s' % (n, unit)
        n /= 1024.0


def profile_excel(path, out, limits):
    import pandas as pd
    rows = limits['sample_rows']
    sheets = pd.read_excel(path, sheet_name=None, nrows=rows)
    out['sheets'] = []
    total = 0
    for name, df in list(sheets.items())[:50]:
        sheet = {'name': short(name), 'rows': int(len(df)), 'columns': columns_of(df), 'head': head_of(df)}
        if len(df) == rows:
            sheet['notes'] = ['sampled: only the first %d rows of this sheet were read; it may have more' % rows]
        out['sheets'].append(sheet)
        total += len(df)
    out['rows'] = int(total)
    out['header_row'] = 0
    if out['sheets']:
        first = out['sheets'][0]
        out['columns'], out['head'] = first['columns'], first['head']
    if len(sheets) > 50:
        out['notes'] = ['the workbook has %d sheets; only the first 50 are profiled' % len(sheets)]


def profile_json(path, size, out, limits):
    import pandas as pd
    lines = path.lower().endswith(('.jsonl', '.ndjson'))
    rows = limits['sample_rows']
    df = pd.read_json(path, lines=lines, nrows=rows if lines else None)
    out['rows'] = int(len(df))
    if lines and len(df) == rows:
        out['notes'] = ['sampled: only the first %d lines were read; the file may have more' % rows]
    out['columns'] = columns_of(df)
    out['head'] = head_of(df)


def profile_parquet(path, out):
    import pandas as pd
    df = pd.read_parquet(path)
    out['rows'] = int(len(df))
    out['columns'] = columns_of(df)
    out['head'] = head_of(df)


def profile(path, limits=None):
    """limits may lower full_bytes and sample_rows (tests do, to sample a
    small file); values from the host are clamped to the defaults."""
    lim = {'full_bytes': FULL_BYTES, 'sample_rows': SAMPLE_ROWS}
    for k, v in (limits or {}).items():
        if k in lim and isinstance(v, int) and 0 < v < lim[k]:
            lim[k] = v
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        head = f.read(SNIFF_BYTES)
    out = {'name': os.path.basename(path), 'path': path, 'size': size, 'header_row': -1, 'rows': 0}
    kind = kind_of(path, head)
    out['kind'] = kind
    try:
        if kind == 'csv':
            profile_csv(path, size, head, out, lim)
        elif kind == 'excel':
            profile_excel(path, out, lim)
        elif kind == 'json':
            profile_json(path, size, out, lim)
        elif kind == 'parquet':
            profile_parquet(path, out)
    except Exception as e:
        out['error'] = '%s: %s' % (type(e).__name__, str(e)[:300])
    return out
