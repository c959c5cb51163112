# Binary and JSON formats for the profiler (sent with profile.py as one
# program): Parquet, Feather/Arrow, JSON and JSON lines, Stata, SPSS and SAS.
# Row counts come from the file's own metadata where it has one; a large file
# is profiled from its first rows.


def profile_parquet(path, size, out, lim):
    import pandas as pd
    import pyarrow.parquet as pq
    pf = pq.ParquetFile(path)
    total = pf.metadata.num_rows
    if size > lim['full_bytes'] and total > lim['sample_rows']:
        batch = next(pf.iter_batches(batch_size=lim['sample_rows']), None)
        df = batch.to_pandas() if batch is not None else pf.schema_arrow.empty_table().to_pandas()
        out['notes'] = [sampled_note(size, len(df), total)]
    else:
        df = pd.read_parquet(path)
    finish(out, df, total, 'pd.read_parquet', {}, lim)


def profile_feather(path, size, out, lim):
    import pandas as pd
    import pyarrow as pa
    import pyarrow.ipc as ipc
    with open(path, 'rb') as f:
        magic = f.read(6)
    if magic[:4] != b'FEA1' and magic != b'ARROW1':
        raise ValueError('this is an Arrow stream, not an Arrow file or Feather file: '
                         'read it with pyarrow.ipc.open_stream(path).read_pandas()')
    if magic == b'ARROW1':
        with pa.memory_map(path) as src:
            reader = ipc.open_file(src)
            total = sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
            if size > lim['full_bytes'] and total > lim['sample_rows']:
                batches, n = [], 0
                for i in range(reader.num_record_batches):
                    b = reader.get_batch(i)
                    batches.append(b)
                    n += b.num_rows
                    if n >= lim['sample_rows']:
                        break
                df = pa.Table.from_batches(batches, reader.schema).slice(0, lim['sample_rows']).to_pandas()
                out['notes'] = [sampled_note(size, len(df), total)]
                finish(out, df, total, 'pd.read_feather', {}, lim)
                return
    df = pd.read_feather(path)
    finish(out, df, len(df), 'pd.read_feather', {}, lim)


def profile_json(path, size, out, lim, compression):
    import pandas as pd
    name = path.lower()
    if compression:
        name = name.rsplit('.', 1)[0]
    lines = name.endswith(('.jsonl', '.ndjson')) or looks_like_lines(path, compression)
    kw = {'lines': True} if lines else {}
    if compression:
        out['compression'] = compression
        if not compression_inferred(path, compression):
            kw['compression'] = compression
    if not lines and size > lim['full_bytes']:
        raise ValueError('a single JSON document of %s is too large to profile; convert it to JSON lines or '
                         'Parquet' % size_text(size))
    df = pd.read_json(path, nrows=lim['sample_rows'], **kw) if lines else pd.read_json(path, **kw)
    total = len(df)
    notes = []
    if lines and len(df) >= lim['sample_rows']:
        with open_text(path, compression) as f:
            total = sum(b.count(b'\n') for b in iter(lambda: f.read(16 << 20), b''))
        notes.append(sampled_note(size, len(df), total))
    nested = [c for c in df.columns[:MAX_COLUMNS] if df[c].map(lambda v: isinstance(v, (dict, list))).any()]
    if nested:
        notes.append('column%s %s hold%s nested objects: pd.json_normalize flattens them' % (
            '' if len(nested) == 1 else 's', ', '.join(repr(str(c)) for c in nested[:5]), 's' if len(nested) == 1 else ''))
    out['notes'] = notes
    finish(out, df, total, 'pd.read_json', kw, lim)


def looks_like_lines(path, compression):
    """JSON lines under a .json name: the first two lines each hold an object."""
    with open_text(path, compression) as f:
        head = f.read(64 << 10)
    lines = [l.strip() for l in head.splitlines() if l.strip()][:2]
    return len(lines) == 2 and all(l.startswith(b'{') and l.endswith(b'}') for l in lines)


def profile_stats(path, kind, out, lim, head=b''):
    """Stata, SPSS and SAS files: pandas' readers where they convert dates
    and value labels, pyreadstat's where pandas' do not."""
    import pandas as pd
    import pyreadstat
    ext = path.lower().rsplit('.', 1)[-1]
    if ext not in ('dta', 'sav', 'zsav', 'por', 'sas7bdat', 'xpt'):
        ext = (stats_by_magic(head) or (None, 'dta'))[1]  # no extension: by the bytes
    meta_reader = {'dta': pyreadstat.read_dta, 'sav': pyreadstat.read_sav, 'zsav': pyreadstat.read_sav,
                   'por': pyreadstat.read_por, 'sas7bdat': pyreadstat.read_sas7bdat, 'xpt': pyreadstat.read_xport}[ext]
    _, meta = meta_reader(path, metadataonly=True)
    total = meta.number_rows if meta.number_rows is not None else -1
    big = total > lim['sample_rows']
    limit = {'row_limit': lim['sample_rows']} if big else {}
    if ext == 'dta':
        func, kw = 'pd.read_stata', {}
        if big:
            with pd.read_stata(path, iterator=True) as r:
                df = r.read(lim['sample_rows'])
        else:
            df = pd.read_stata(path)
    elif ext in ('sav', 'zsav'):
        func, kw = 'pd.read_spss', {}
        df = pyreadstat.read_sav(path, apply_value_formats=True, **limit)[0] if big else pd.read_spss(path)
    else:
        func = {'por': 'pyreadstat.read_por', 'sas7bdat': 'pyreadstat.read_sas7bdat', 'xpt': 'pyreadstat.read_xport'}[ext]
        kw = {'apply_value_formats': True} if ext == 'por' else {}
        df = meta_reader(path, **kw, **limit)[0]
    if total < 0:
        total = len(df)
    notes = []
    if big:
        notes.append(sampled_note(out['size'], len(df), total))
    labels = getattr(meta, 'column_names_to_labels', None) or {}
    described = ['%s = %s' % (k, v) for k, v in labels.items() if v and v != k][:20]
    if described:
        notes.append('variable labels: ' + '; '.join(described))
    out['notes'] = notes
    finish(out, df, total, func, kw, lim)


def sampled_note(size, n, total):
    return ('sampled: the file is %s with %d rows; dtypes, missing counts and examples come from its first %d rows'
            % (size_text(size), total, n))


def finish(out, df, total, func, kw, lim):
    out['rows'] = int(total)
    out['header_row'] = 0
    out['columns'] = columns_of(df)
    if df.shape[1] > MAX_COLUMNS:
        out['column_count'] = int(df.shape[1])
    out['head'] = head_of(df)
    out['read'] = read_spec(func, kw)
    judge_memory(out, df, total, lim)
