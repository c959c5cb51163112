# CSV and other delimited text for the profiler (sent with profile/front.py as one
# program): the encoding, dialect and table are found from samples of the
# bytes, and the read_csv call built from them is run; the call that ran is
# the one reported, so the model's first read works as the profile's did.
import collections


def profile_csv(path, size, out, lim, spec):
    import pandas as pd

    compression = spec.get('compression')
    src = TextSource(path, size, compression, lim)
    enc, strict = detect_encoding(src.chunks)
    for _ in range(3):
        # The whole file must decode, not only the samples: a byte further in
        # that does not is shown to the detection, which then chooses again.
        if src.sampled or not strict or enc.startswith('utf-16') or enc == 'latin-1':
            break
        bad = first_undecodable(path, compression, enc)
        if bad is None:
            break
        src.chunks.append(bad)
        enc, strict = detect_encoding(src.chunks)
    text = src.head.decode(enc, errors='replace').lstrip('\ufeff')
    delim, quote, spaced = sniff(text)
    ends = []
    rows = parse(text, delim, quote, spaced, ends=ends) or []
    if not src.whole and len(rows) > 1:
        rows, ends = rows[:-1], ends[:-1]  # the sample may end inside a record
    kinds = {}

    def kind_of(i, j):
        k = kinds.get((i, j))
        if k is None:
            row = rows[i]
            k = kinds[(i, j)] = kind(row[j]) if j < len(row) else 'e'
        return k

    def line_of(i):
        return (ends[i - 1] if i else 0) + 1

    reader, spans, names = 'pd.read_csv', None, None
    if delim == WHITESPACE:
        spans = fixed_width(text, rows)
    if spans:
        # Values with spaces inside (a name, "(Debian QA Group)"): the
        # columns are where the text is, as read_fwf reads them.
        reader, delim = 'pd.read_fwf', 'fixed-width'
        split, rows = rows, [fixed_cells(l, spans) for l in text.splitlines()[: len(rows)]]
    table = find_table(rows, kind_of, partial=not src.whole)
    if spans and table.header:
        if len(split[table.start]) == len(spans):
            names = split[table.start]  # one word each, not lined up with the values
        else:
            spans = column_spans(
                [text.splitlines()[i] for i in table.body() if rows[i]], text.splitlines()[table.start]
            )
            rows[table.start] = fixed_cells(text.splitlines()[table.start], spans)
        kinds.clear()
    out.update(encoding=enc, delimiter=delim, header_row=table.start if table.header else -1)
    sample = encoding_sample(src.chunks, enc, delim)
    if sample:
        out['encoding_sample'] = sample
    if compression:
        out['compression'] = compression
        out['unpacked'] = int(src.unpacked)
    kw = {}
    if compression and not spec.get('compression_named'):
        kw['compression'] = compression  # pandas infers it from the name only
    if spans:
        kw['colspecs'] = spans
        if names:
            # The names, one word each, do not line up with the values.
            kw['names'], kw['header'] = names, None
    elif delim != ',':
        kw['sep'] = delim
    if quote != '"':
        kw['quotechar'] = quote
    if spaced:
        kw['skipinitialspace'] = True
    if enc != 'utf-8':
        kw['encoding'] = enc
    if not strict:
        kw['encoding_errors'] = 'replace'
    if not table.header:
        kw['header'] = None
    notes = list(table.notes)
    skip = set(table.comments)
    if 'names' in kw:
        skip.add(table.start)
    if not spans:
        notes += ragged(rows, table, kw, skip, line_of, src.whole)
    body = [rows[i] for i in table.body() if i not in skip]
    hashes = sum(''.join(rows[i]).count('#') for i in table.hashed)
    if table.hashed and text.count('#') == hashes and not skip - set(table.comments):
        # '#' starts comment lines only: read_csv skips them wherever they
        # are, also past the sample.
        kw['comment'] = '#'
        skip = set()
    if table.comments:
        notes.append(
            plural(len(table.comments), 'comment line')
            + ' (starting with #) inside the table '
            + ('is' if len(table.comments) == 1 else 'are')
            + ' skipped'
        )
    skipped = sorted(set(range(table.start)) | skip)
    if skipped:
        kw['skiprows'] = len(skipped) if skipped[-1] == len(skipped) - 1 else skipped
    footer = sum(1 for r in rows[table.end :] if not pandas_blank(r))
    if src.whole and footer:
        kw['nrows'] = sum(1 for r in body if not pandas_blank(r))
    elif not src.whole and src.tail:
        footer = tail_footer(
            src.tail.decode(enc, errors='replace'), WHITESPACE if spans else delim, quote, spaced, table.width
        )
    width = max(table.width, len(rows[table.start]) if table.header and table.start < len(rows) else 0, 1)
    # A very wide table is profiled from its first MAX_COLUMNS columns (read
    # with usecols), so the time does not grow with the width.
    usecols = list(range(MAX_COLUMNS)) if width > MAX_COLUMNS else None
    columns = [[r[j].strip() if j < len(r) else '' for r in body[:2000]] for j in range(min(width, MAX_COLUMNS))]
    decimal, thousands = number_format(columns)
    out['decimal'] = decimal
    if decimal != '.':
        kw['decimal'] = decimal
    if thousands:
        kw['thousands'] = out['thousands'] = thousands
    na = missing_markers(columns, decimal, thousands)
    if na:
        kw['na_values'] = na
        notes.append('%s mark%s missing values' % (', '.join(repr(t) for t in na), 's' if len(na) == 1 else ''))
    names = kw.get('names') or (header_names(pd, reader, path, kw, usecols) if table.header else list(range(width)))
    names = names[: len(columns)]
    if len(names) == len(columns):
        dates = date_formats(names, columns)
        if table.header or 'names' in kw:
            codes = code_columns(names, columns)
            if codes:
                kw['dtype'] = {c: 'str' for c in codes}
        elif len(set(dates.values())) > 1:
            dates = {}  # positions take one format; a dict would need int keys
        if dates:
            kw['parse_dates'] = list(dates)
            kw['date_format'] = dates if table.header or 'names' in kw else next(iter(dates.values()))
    df, more = run_read(pd, reader, path, kw, src.sampled and lim['sample_rows'], usecols)
    notes += more
    if footer and not src.whole and not src.sampled and len(df) > footer:
        kw['nrows'] = len(df) - footer
        df, more = run_read(pd, reader, path, kw, False, usecols)
        notes += more
        footer = 0
    rows_total = len(df)
    if src.sampled and len(df) >= lim['sample_rows']:
        rows_total = max(src.lines - table.start - (1 if table.header else 0) - footer, len(df))
        notes.insert(
            0,
            'sampled: the file is %s, so dtypes, missing counts and examples come from its first %d '
            'rows only; the row count %d is an estimate from counting lines'
            % (file_size_text(size, compression, src), len(df), rows_total),
        )
    if footer and src.sampled:
        notes.append(
            'the file ends with %s that %s not part of the table (a footer): drop %s after reading '
            '(df.iloc[:-%d])'
            % (plural(footer, 'line'), 'is' if footer == 1 else 'are', 'it' if footer == 1 else 'them', footer)
        )
    out['rows'] = int(rows_total)
    fmts = kw.get('date_format') or {}
    if isinstance(fmts, str):
        fmts = {k: fmts for k in kw['parse_dates']}
    cols = columns_of(df)
    for c, name in zip(cols, df.columns):
        if name in fmts and c['dtype'].startswith('datetime'):
            c['date_format'] = fmts[name]
    out['columns'] = cols
    out['head'] = head_of(df)
    out['notes'] = notes
    out['read'] = read_spec(reader, kw)
    if usecols:
        out['column_count'] = width
        notes.insert(
            0,
            'wide: the table has %d columns; the profile read and lists the first %d (add '
            'usecols= to the read call to load only the columns you need; '
            '%s(path, nrows=0%s).columns names them all)'
            % (
                width,
                len(usecols),
                reader,
                ''.join(', %s=%r' % a for a in kw.items() if a[0] in ('sep', 'skiprows', 'encoding')),
            ),
        )
    judge_memory(out, df, rows_total, lim, width / max(len(df.columns), 1))


def fixed_width(text, rows):
    """read_fwf's colspecs for a space-aligned table whose lines do not
    split into one number of fields; None when whitespace splits them."""
    lines = text.splitlines()[: len(rows)]
    data = [i for i, r in enumerate(rows) if r and not r[0].startswith('#')]
    widths = collections.Counter(len(rows[i]) for i in data)
    if not data or widths.most_common(1)[0][1] * 20 >= len(data) * 19:
        return None
    spans = column_spans([lines[i] for i in data])
    return spans if len(spans) >= 2 else None


def file_size_text(size, compression, src):
    if not compression:
        return size_text(size)
    return '%s (%s, %s unpacked)' % (
        size_text(size),
        compression,
        size_text(src.unpacked) if src.unpacked_exact else 'about ' + size_text(src.unpacked),
    )


def fixed_cells(line, spans):
    """A line of an aligned table cut at the columns; a blank line is [] and
    a rule (----, ====) one cell, so it ends the table as a narrow line does."""
    if not line.strip():
        return []
    if not line.strip(' -=_+*|\t'):
        return [line]
    return [line[a:b] for a, b in spans]


def reader_of(pd, reader):
    return pd.read_fwf if reader == 'pd.read_fwf' else pd.read_csv


def plural(n, word):
    return '%d %s%s' % (n, word, '' if n == 1 else 's')


def header_names(pd, reader, path, kw, usecols=None):
    """The column names read_csv gives the header (deduplicated, blanks as
    'Unnamed: n'), from the header line alone."""
    try:
        probe = {k: v for k, v in kw.items() if k not in ('dtype', 'parse_dates', 'date_format', 'nrows')}
        if usecols:
            probe['usecols'] = usecols
        return list(reader_of(pd, reader)(path, nrows=0, **probe).columns)
    except Exception:
        return []


def run_read(pd, reader, path, kw, sample_rows, usecols=None):
    """Runs read_csv as it will be reported (plus nrows for a sample); a
    failure with a known cause is fixed in the call, and a note says so."""
    notes = []
    for _ in range(4):
        call = dict(kw)
        if sample_rows:
            call['nrows'] = min(call.get('nrows', sample_rows), sample_rows)
        if usecols:
            call['usecols'] = usecols
        try:
            if reader == 'pd.read_fwf':
                return pd.read_fwf(path, **call), notes
            return pd.read_csv(path, low_memory=False, **call), notes
        except UnicodeDecodeError as e:
            if kw.get('encoding_errors'):
                raise
            kw['encoding_errors'] = 'replace'
            notes.append(
                'some bytes are not valid %s (%s); they read as \ufffd' % (kw.get('encoding', 'utf-8'), e.reason)
            )
        except pd.errors.ParserError as e:
            if kw.get('on_bad_lines'):
                raise
            kw['on_bad_lines'] = 'skip'
            notes.append('read_csv could not split every line (%s); such lines are skipped' % str(e).strip()[:160])
        except ValueError, TypeError:
            if not any(k in kw for k in ('parse_dates', 'dtype')):
                raise
            # A name pandas spells differently: read without the extras
            # rather than not at all.
            for k in ('parse_dates', 'date_format', 'dtype'):
                kw.pop(k, None)
    raise ValueError('read_csv failed after every fix the profile knows')


def ragged(rows, table, kw, skip, line_of, whole):
    """Rows wider or narrower than the header: read_csv would shift a wider
    row's values into the index or stop; the call keeps the columns aligned
    (wider rows holding values are skipped by number, and named in a note)."""
    body = [i for i in table.body() if i not in skip]
    if not body:
        return []
    width = len(rows[table.start]) if table.header else table.width
    notes = []
    wide = [i for i in body if len(rows[i]) > width]
    filled = [i for i in wide if any(c.strip() for c in rows[i][width:])]
    short = [i for i in body if 1 < len(rows[i]) < width]
    if wide and not filled:
        kw['index_col'] = False  # trailing delimiters: the empty last field is dropped
    elif filled and len(filled) * 2 > len(body) and table.header:
        extra = max(len(rows[i]) for i in filled) - width
        kw['names'] = [c.strip() or 'Unnamed: %d' % j for j, c in enumerate(rows[table.start])] + [
            'extra_%d' % (j + 1) for j in range(extra)
        ]
        kw['header'] = None
        skip.add(table.start)
        notes.append('most rows have more fields than the header; the extra ones are named extra_1, ...')
    elif filled:
        skip.update(filled)
        if not whole:
            kw['on_bad_lines'] = 'skip'
        notes.append(
            '%s (%s) %s more fields than the header and %s skipped'
            % (
                plural(len(filled), 'line'),
                lines_text(filled, line_of),
                'has' if len(filled) == 1 else 'have',
                'is' if len(filled) == 1 else 'are',
            )
        )
    if short:
        notes.append(
            '%s (%s) %s fewer fields than the header; the missing ones read as NaN'
            % (plural(len(short), 'line'), lines_text(short, line_of), 'has' if len(short) == 1 else 'have')
        )
    return notes


def lines_text(idx, line_of):
    return 'line ' + ', '.join(str(line_of(i)) for i in idx[:5]) + (' …' if len(idx) > 5 else '')


def tail_footer(text, delim, quote, spaced, width):
    """The number of footer lines at the end of a file whose head alone was
    sampled."""
    cut = text.find('\n')
    rows = parse(text[cut + 1 :], delim, quote, spaced) or []
    if len(rows) < 3:
        return 0
    kinds = {}

    def kind_of(i, j):
        k = kinds.get((i, j))
        if k is None:
            k = kinds[(i, j)] = kind(rows[i][j]) if j < len(rows[i]) else 'e'
        return k

    t = find_table(rows, kind_of)
    if t.end >= len(rows) or t.width != width:
        return 0
    return sum(1 for r in rows[t.end :] if not pandas_blank(r))


READERS['csv'] = profile_csv
