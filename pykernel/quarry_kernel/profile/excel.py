# Excel and OpenDocument workbooks for the profiler (sent with profile/front.py as
# one program). Each sheet is read as a grid, the table inside it found as in
# a CSV (title block, header row, column range, notes below), and read again
# with the read_excel call that is reported for that sheet.
import datetime
import numbers

EXCEL_ROWS = 50000  # rows per sheet read for the profile
MAX_SHEETS = 50


def profile_excel(path, size, out, lim, spec):
    import pandas as pd

    states, charts = sheet_states(path, spec['name'])
    nrows = min(lim['sample_rows'], EXCEL_ROWS)
    grids = pd.read_excel(path, sheet_name=None, header=None, nrows=nrows)
    names = list(grids)
    out['sheets'] = []
    main = None
    for name in names[:MAX_SHEETS]:
        sheet = profile_sheet(pd, path, name, grids[name], len(names) > 1, nrows)
        state = states.get(name, 'visible')
        if state != 'visible':
            sheet['state'] = 'very hidden' if state == 'veryHidden' else 'hidden'
        out['sheets'].append(sheet)
    # The main sheet holds the largest visible table: a workbook often opens
    # with a summary of the data on a later sheet.
    tables = [s for s in out['sheets'] if 'read' in s]
    visible = [s for s in tables if not s.get('state')] or tables
    if visible:
        main = max(visible, key=lambda s: (s['rows'] * max(len(s['columns']), 1), -out['sheets'].index(s)))
    notes = []
    hidden = [s['name'] for s in out['sheets'] if s.get('state')]
    if hidden:
        notes.append(
            'hidden sheet%s: %s (Excel does not show %s; the data may still matter)'
            % (
                '' if len(hidden) == 1 else 's',
                ', '.join(repr(h) for h in hidden),
                'it' if len(hidden) == 1 else 'them',
            )
        )
    if charts:
        notes.append(
            'chart sheet%s without data: %s' % ('' if len(charts) == 1 else 's', ', '.join(repr(c) for c in charts))
        )
    if len(names) > MAX_SHEETS:
        notes.append('the workbook has %d sheets; only the first %d are profiled' % (len(names), MAX_SHEETS))
    if main is not None:
        out['rows'] = main['rows']
        out['header_row'] = main['header_row']
        out['columns'], out['head'], out['read'] = main['columns'], main['head'], main['read']
        if main.get('column_count'):
            out['column_count'] = main['column_count']
        if len(tables) > 1:
            shapes = ', '.join('%r %d × %d' % (s['name'], s['rows'], len(s['columns'])) for s in tables[:8])
            notes.insert(
                0,
                'the sheets hold different tables (%s): the read call loads %r, the largest; each sheet '
                'has its own read call below, use the one whose table the question is about' % (shapes, main['name']),
            )
        elif len(names) > 1:
            notes.insert(0, 'the read call loads sheet %r; each sheet has its own below' % main['name'])
    else:
        out['header_row'] = -1
    out['notes'] = notes
    if main is not None:
        judge_memory(out, main.pop('_df'), main['rows'], lim)
    for s in out['sheets']:
        s.pop('_df', None)


def profile_sheet(pd, path, name, grid, multi, nrows):
    rows, kinds = grid_cells(grid)
    sheet = {'name': short(name), 'rows': 0, 'header_row': -1}
    if not any(any(c for c in r) for r in rows):
        sheet['notes'] = ['empty']
        return sheet
    partial = len(grid) >= nrows
    table = find_table(rows, lambda i, j: kinds[i][j] if j < len(kinds[i]) else 'e', partial=partial, grid=True)
    kw = {}
    if multi:
        kw['sheet_name'] = name
    if table.header:
        if table.start:
            kw['header'] = table.start
    else:
        kw['header'] = None
        if table.start:
            kw['skiprows'] = table.start
    span = column_span(rows, table)
    if span and (span[0] > 0 or span[1] < grid.shape[1] - 1):
        kw['usecols'] = '%s:%s' % (column_letter(span[0]), column_letter(span[1]))
    if table.end < len(rows) and any(any(c for c in r) for r in rows[table.end :]):
        kw['nrows'] = table.end - table.start - (1 if table.header else 0)
    call = dict(kw)
    if partial:
        call['nrows'] = min(kw.get('nrows', nrows), nrows)
    df = pd.read_excel(path, **call)
    sheet['rows'] = int(len(df))
    sheet['header_row'] = table.start if table.header else -1
    sheet['columns'] = columns_of(df)
    if df.shape[1] > MAX_COLUMNS:
        sheet['column_count'] = int(df.shape[1])
    sheet['head'] = head_of(df)
    sheet['read'] = read_spec('pd.read_excel', kw)
    sheet['_df'] = df
    notes = list(table.notes)
    if table.start and table.header:
        notes.append('the header is on row %d of the sheet' % (table.start + 1))
    elif table.start:
        notes.append('the table starts on row %d of the sheet' % (table.start + 1))
    if 'usecols' in kw:
        notes.append('the table spans columns %s' % kw['usecols'])
    if partial:
        notes.append('sampled: only the first %d rows of this sheet were read; it may have more' % nrows)
    if notes:
        sheet['notes'] = notes
    return sheet


def grid_cells(grid):
    """Cell text and kind ('e','n','d','t') of a sheet read without a
    header; Excel's own types decide where it has them."""
    rows, kinds = [], []
    for values in grid.itertuples(index=False, name=None):
        r, k = [], []
        for v in values:
            if v is None or isinstance(v, float) and v != v:
                r.append('')
                k.append('e')
            elif isinstance(v, str):
                r.append(v)
                k.append(kind(v))
            elif isinstance(v, (bool, numbers.Number)):
                r.append(str(v))
                k.append('n')
            elif isinstance(v, (datetime.date, datetime.time)):
                r.append(str(v))
                k.append('d')
            else:
                r.append(str(v))
                k.append('t')
        rows.append(r)
        kinds.append(k)
    return rows, kinds


def column_span(rows, table):
    """First and last column holding a value in the table's rows."""
    lo = hi = None
    for i in range(table.start, table.end):
        for j, c in enumerate(rows[i]):
            if c.strip():
                lo = j if lo is None else min(lo, j)
                hi = j if hi is None else max(hi, j)
    return (lo, hi) if lo is not None else None


def column_letter(j):
    s = ''
    j += 1
    while j:
        j, r = divmod(j - 1, 26)
        s = chr(65 + r) + s
    return s


def sheet_states(path, name):
    """{sheet name: 'visible' | 'hidden' | 'veryHidden'} and the names of
    chart sheets, where the file format (the kind's row name) says."""
    try:
        if name == 'xls':
            import xlrd

            book = xlrd.open_workbook(path, on_demand=True)
            states = {s.name: ('visible', 'hidden', 'veryHidden')[min(s.visibility, 2)] for s in book.sheets()}
            book.release_resources()
            return states, []
        if name == 'xlsx':
            import openpyxl

            with open(path, 'rb') as fh:  # a handle: openpyxl refuses a name without .xlsx
                wb = openpyxl.load_workbook(fh, read_only=True)
                states = {ws.title: ws.sheet_state for ws in wb.worksheets}
                charts = [c.title for c in getattr(wb, 'chartsheets', [])]
                wb.close()
            return states, charts
    except Exception:
        pass
    return {}, []


READERS['excel'] = profile_excel
