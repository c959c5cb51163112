# Binary and JSON formats for the profiler (sent with profile/front.py as one
# program): Parquet, Feather/Arrow, Arrow streams, JSON and JSON lines,
# Stata, SPSS and SAS.
# Row counts come from the file's own metadata where it has one; a large file
# is profiled from its first rows.


def profile_parquet(path, size, out, lim, spec):
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
    finish(out, df, total, spec['reads'][0], {}, lim)


def profile_feather(path, size, out, lim, spec):
    """Feather 2 is the Arrow IPC file format: its batches give the row
    count without reading the data; Feather 1 is read whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.ipc as ipc

    with pa.memory_map(path) as src:
        try:
            reader = ipc.open_file(src)
        except pa.ArrowInvalid:
            reader = None  # Feather 1
        if reader is not None:
            total = sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
            if size > lim['full_bytes'] and total > lim['sample_rows']:
                df = sample_batches(
                    (reader.get_batch(i) for i in range(reader.num_record_batches)), reader.schema, lim['sample_rows']
                )
                out['notes'] = [sampled_note(size, len(df), total)]
                finish(out, df, total, spec['reads'][0], {}, lim)
                return
    df = pd.read_feather(path)
    finish(out, df, len(df), spec['reads'][0], {}, lim)


def profile_arrow_stream(path, size, out, lim, spec):
    """An Arrow IPC stream (what pyarrow.ipc.new_stream and many services
    write): pandas has no reader for it, so the notes give pyarrow's line."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    with pa.memory_map(path) as src:
        reader = ipc.open_stream(src)
        kept, total = [], 0
        for b in reader:
            if total < lim['sample_rows']:
                kept.append(b)
            total += b.num_rows
        df = sample_batches(kept, reader.schema, lim['sample_rows'])
    out['notes'] = ['an Arrow IPC stream: import pyarrow as pa; df = pa.ipc.open_stream(%r).read_pandas()' % path]
    if total > len(df):
        out['notes'].append(sampled_note(size, len(df), total))
    finish(out, df, total, None, {}, lim)


def sample_batches(batches, schema, n):
    import pyarrow as pa

    kept, rows = [], 0
    for b in batches:
        kept.append(b)
        rows += b.num_rows
        if rows >= n:
            break
    return pa.Table.from_batches(kept, schema).slice(0, n).to_pandas()


def profile_json(path, size, out, lim, spec):
    import pandas as pd

    compression = spec.get('compression')
    lines = spec['name'] == 'jsonl'
    kw = {'lines': True} if lines else {}
    if compression and not spec.get('compression_named'):
        kw['compression'] = compression
    if not lines and size > lim['full_bytes']:
        raise ValueError(
            'a single JSON document of %s is too large to profile; convert it to JSON lines or '
            'Parquet' % size_text(size)
        )
    df = pd.read_json(path, nrows=lim['sample_rows'], **kw) if lines else pd.read_json(path, **kw)
    total = len(df)
    notes = []
    if lines and len(df) >= lim['sample_rows']:
        with open_text(path, compression) as f:
            total = sum(b.count(b'\n') for b in iter(lambda: f.read(16 << 20), b''))
        notes.append(sampled_note(size, len(df), total))
    nested = [c for c in df.columns[:MAX_COLUMNS] if df[c].map(lambda v: isinstance(v, (dict, list))).any()]
    if nested:
        notes.append(
            'column%s %s hold%s nested objects: pd.json_normalize flattens them'
            % (
                '' if len(nested) == 1 else 's',
                ', '.join(repr(str(c)) for c in nested[:5]),
                's' if len(nested) == 1 else '',
            )
        )
    out['notes'] = notes
    finish(out, df, total, spec['reads'][0], kw, lim)


# pyreadstat's metadata reader for each read call a statistics file's row
# may name.
_META_READER = {
    'pd.read_stata': 'read_dta',
    'pd.read_spss': 'read_sav',
    'pyreadstat.read_por': 'read_por',
    'pyreadstat.read_sas7bdat': 'read_sas7bdat',
    'pyreadstat.read_xport': 'read_xport',
}


def profile_stats(path, size, out, lim, spec):
    """Stata, SPSS and SAS files: pandas' readers where they convert dates
    and value labels, pyreadstat's where pandas' do not."""
    import pandas as pd
    import pyreadstat

    func = spec['reads'][0]
    meta_reader = getattr(pyreadstat, _META_READER[func])
    _, meta = meta_reader(path, metadataonly=True)
    total = meta.number_rows if meta.number_rows is not None else -1
    big = total > lim['sample_rows']
    limit = {'row_limit': lim['sample_rows']} if big else {}
    kw = {}
    if func == 'pd.read_stata':
        if big:
            with pd.read_stata(path, iterator=True) as r:
                df = r.read(lim['sample_rows'])
        else:
            df = pd.read_stata(path)
    elif func == 'pd.read_spss':
        df = pyreadstat.read_sav(path, apply_value_formats=True, **limit)[0] if big else pd.read_spss(path)
    else:
        kw = {'apply_value_formats': True} if func == 'pyreadstat.read_por' else {}
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
    return 'sampled: the file is %s with %d rows; dtypes, missing counts and examples come from its first %d rows' % (
        size_text(size),
        total,
        n,
    )


def finish(out, df, total, func, kw, lim):
    out['rows'] = int(total)
    out['header_row'] = 0
    out['columns'] = columns_of(df)
    if df.shape[1] > MAX_COLUMNS:
        out['column_count'] = int(df.shape[1])
    out['head'] = head_of(df)
    if func:
        out['read'] = read_spec(func, kw)
    judge_memory(out, df, total, lim)


READERS.update(
    parquet=profile_parquet,
    feather=profile_feather,
    arrow_stream=profile_arrow_stream,
    json=profile_json,
    stata=profile_stats,
    spss=profile_stats,
    sas=profile_stats,
)
