# quarry's report builder, part 3 of 4: the workbook. Summary (the
# variance table, the bridge chart, the key figures, the commentary with
# its unverified numbers marked, the notes), one sheet per analysis of why
# the variance moved (explain(), pvm(): its rows, then its notes and
# method), one sheet per table the session saved, Sources (files with sizes and hashes, databases, the
# question, the model, the date, what the cleaning did) and Code (each
# cell's code). Written in openpyxl's write-only mode: rows stream out, so
# a sheet of a million rows costs no more memory than one.
import os

MAX_ROWS = 1048575      # Excel's rows, less the header
PANEL_WRAP = 100        # characters per line of the commentary
PANEL_WIDTH = 104
MAX_NOTES = 200
MAX_CODE_LINES = 100000
CHART_WIDTH = 720       # pixels on the sheet
ROW_PX = 20             # a default row's height in pixels
SUMMARY_TOP = 4         # the table's header row


def write_workbook(spec, data, path, counts):
    from openpyxl import Workbook
    st = Styles(spec['number_formats'])
    wb = Workbook(write_only=True)
    taken = {'summary', 'sources', 'code'}
    summary_sheet(wb, spec, data, st, counts)
    if (spec.get('variance') or {}).get('comparisons'):
        taken.add('comparisons')
        comparisons_sheet(wb, spec['variance'], st, counts)
    for a in spec.get('analyses') or []:
        analysis_sheet(wb, a, st, counts, taken)
    made = []
    for t in spec.get('tables') or []:
        made += table_sheets(wb, t, data, st, counts, taken)
    sources_sheet(wb, spec, made, st, counts)
    code_sheet(wb, spec, st, counts)
    wb.save(path)
    return made


# Summary


def summary_sheet(wb, spec, data, st, counts):
    ws = wb.create_sheet('Summary')
    v = spec.get('variance')
    labels = [clean_text(x, 100) for x in (v or {}).get('labels') or ['line']]
    cur = (' (%s)' % clean_text(spec['currency'], 12)) if spec.get('currency') else ''
    head = labels + ['Kind', 'Actual' + cur, 'Budget' + cur, 'Variance' + cur, 'Variance %', 'Effect', 'Material']
    lines = (v or {}).get('lines') or []
    rows = [_variance_row(ws, ln, len(labels), st, counts) for ln in lines] if v else []
    ncols = len(head) if v else 1
    widths = _summary_widths(head, lines, len(labels)) if v else [12]
    panel_col = ncols + 2
    for i, w in enumerate(widths):
        ws.column_dimensions[col_letter(i + 1)].width = w
    ws.column_dimensions[col_letter(ncols + 1)].width = 3
    ws.column_dimensions[col_letter(panel_col)].width = PANEL_WIDTH
    if v:
        ws.freeze_panes = '%s%d' % (col_letter(len(labels) + 1), SUMMARY_TOP + 1)
        _print_setup(ws, ncols, SUMMARY_TOP + len(lines))
    panel, chart_at = _panel(ws, spec, data, st, counts, panel_col)
    out = {1: [cell(ws, spec.get('title') or 'Report', counts, font=st.title, limit=250)],
           2: [cell(ws, spec.get('subtitle') or '', counts, font=st.subtitle, limit=CELL_MAX)]}
    if v:
        out[SUMMARY_TOP] = [cell(ws, h, counts, font=st.bold, fill=st.head_fill, border=st.head_border,
                                 limit=100) for h in head]
        for i, r in enumerate(rows):
            out[SUMMARY_TOP + 1 + i] = r
    elif spec.get('no_variance'):
        out[SUMMARY_TOP] = [cell(ws, spec.get('no_variance') or '', counts, font=st.subtitle, limit=CELL_MAX)]
    last = max(list(out) + list(panel) + [SUMMARY_TOP])
    for r in range(1, last + 1):
        row = list(out.get(r, []))
        if r in panel:
            row += [None] * (panel_col - 1 - len(row)) + [panel[r]]
        ws.append(row)
    if v and len(lines) > 1:
        ws.auto_filter.ref = 'A%d:%s%d' % (SUMMARY_TOP, col_letter(ncols), SUMMARY_TOP + len(lines) - 1)
    if chart_at:
        ws.add_image(chart_at[0], '%s%d' % (col_letter(panel_col), chart_at[1]))


def _print_setup(ws, ncols, last):
    """Printed, the table fits the page's width, its header on every page."""
    ws.page_setup.orientation = 'landscape' if ncols > 9 else 'portrait'
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_title_rows = '%d:%d' % (SUMMARY_TOP, SUMMARY_TOP)
    ws.print_area = 'A1:%s%d' % (col_letter(ncols), last)


def _variance_row(ws, ln, nlabels, st, counts):
    total = bool(ln.get('total'))
    eff = ln.get('effect') or ''
    bold = st.bold if total else None
    border = st.total_border if total else None
    row = [cell(ws, x, counts, font=bold, border=border) for x in line_labels(ln, nlabels)]
    row.append(cell(ws, ln.get('kind') or '', counts, font=bold, border=border))
    for k in ('actual', 'budget'):
        row.append(cell(ws, ln.get(k), counts, st.money, font=bold, border=border))
    fill, font = st.fills.get(eff), (st.bold_fonts if total else st.fonts).get(eff, bold)
    row.append(cell(ws, ln.get('variance'), counts, st.money, font=font, fill=fill, border=border))
    pct = ln.get('pct')
    row.append(cell(ws, None if pct is None else pct / 100.0, counts, st.percent, font=font, fill=fill, border=border))
    row.append(cell(ws, eff, counts, font=font, fill=fill, border=border))
    row.append(cell(ws, bool(ln.get('material')), counts, font=bold, border=border))
    return row


def _summary_widths(head, lines, nlabels):
    widths = [len(h) + 2 for h in head]
    for ln in lines[:5000]:
        for j, x in enumerate((ln.get('label') or [])[-nlabels:]):
            widths[j] = max(widths[j], min(60, len(str(x)) + 2))
        for j, t in enumerate((ln.get('text') or [])[:4], nlabels + 1):
            widths[j] = max(widths[j], len(t) + 3)
    widths[nlabels] = max(widths[nlabels], 9)
    return [min(60, max(8, w)) for w in widths]


def _panel(ws, spec, data, st, counts, col):
    """The column beside the table: the chart, the key figures, the
    commentary and the notes, one line of text per row (rows keep their
    height, so the table beside stays even)."""
    panel, r, chart = {}, SUMMARY_TOP, None
    ch = spec.get('chart')
    if ch and os.path.isfile(os.path.join(data, ch['file'])):
        from openpyxl.drawing.image import Image
        img = Image(os.path.join(data, ch['file']))
        scale = min(1.0, CHART_WIDTH / float(img.width or CHART_WIDTH))
        img.width, img.height = int(img.width * scale), int(img.height * scale)
        chart = (img, r)
        r += -(-img.height // ROW_PX) + 1
    for title, blocks in (('Key figures', spec.get('highlights')), ('Commentary', spec.get('commentary'))):
        if not blocks:
            continue
        panel[r] = cell(ws, title, counts, font=st.bold)
        r += 1
        for b in blocks:
            runs = b.get('runs') or []
            if b.get('style') == 'h':
                runs = [dict(x, b=True) for x in runs]
            if b.get('style') == 'pre':
                texts = ''.join(x.get('t', '') for x in runs).split('\n')
                wrapped = [[{'t': t, 'mono': True}] for t in texts]
            else:
                wrapped = wrap_runs(runs, PANEL_WRAP)
            for line in wrapped:
                panel[r] = rich(ws, line, st)
                r += 1
        r += 1
    if spec.get('unverified_legend'):
        panel[r] = rich(ws, [{'t': spec['unverified_legend'], 'mark': 'legend'}], st)
        r += 2
    v = spec.get('variance') or {}
    notes = list(v.get('said') or []) + list(v.get('notes') or [])  # what the table leaves out first
    if notes:
        panel[r] = cell(ws, 'How the table was made (the notes of variance())', counts, font=st.bold)
        r += 1
        for n in notes[:MAX_NOTES]:
            for line in wrap_runs([{'t': '\u2022 ' + clean_text(n, CELL_MAX)}], PANEL_WRAP):
                panel[r] = rich(ws, line, st)
                r += 1
        if len(notes) > MAX_NOTES:
            panel[r] = cell(ws, '\u2026 %s more in the session record' % grouped(len(notes) - MAX_NOTES), counts,
                            font=st.subtitle)
            r += 1
    return panel, chart


# The comparisons, grouped as FP&A packs lay them out


def comparisons_sheet(wb, v, st, counts):
    """Each line's actual, then a block per comparison (budget, forecast,
    prior year): its amount, the variance, the percent and the effect,
    the variance filled by better or worse; the Total bold."""
    ws = wb.create_sheet('Comparisons')
    labels = [clean_text(x, 100) for x in v.get('labels') or ['line']]
    names = list(v.get('comparisons') or [])
    titles = list(v.get('titles') or names)
    n = len(labels)
    widths = [max([len(x) + 2] + [len(str((ln.get('label') or [''] * n)[j])) + 2 for ln in v.get('lines') or []][:2000])
              for j, x in enumerate(labels)]
    for j, w in enumerate(widths):
        ws.column_dimensions[col_letter(j + 1)].width = min(w, 60)
    for j in range(n, n + 1 + 4 * len(names)):
        ws.column_dimensions[col_letter(j + 1)].width = 15
    ws.freeze_panes = '%s3' % col_letter(n + 2)
    group = [cell(ws, '', counts) for _ in range(n + 1)]
    sub = [cell(ws, h, counts, font=st.bold, fill=st.head_fill, border=st.head_border) for h in labels + ['Actual']]
    for name, title in zip(names, titles, strict=False):
        group += [cell(ws, clean_text(title, 40), counts, font=st.bold)] + [cell(ws, '', counts) for _ in range(3)]
        sub += [cell(ws, h, counts, font=st.bold, fill=st.head_fill, border=st.head_border)
                for h in (clean_text(title, 40), 'Variance', 'Variance %', 'Effect')]
    ws.append(group)
    ws.append(sub)
    for ln in v.get('lines') or []:
        total = bool(ln.get('total'))
        font = st.bold if total else None
        border = st.total_border if total else None
        row = [cell(ws, x, counts, font=font, border=border, limit=CELL_MAX) for x in line_labels(ln, n)]
        row.append(cell(ws, ln.get('actual'), counts, st.money, font=font, border=border))
        comps = ln.get('comparisons') or {}
        for name in names:
            c = comps.get(name) or {}
            eff = c.get('effect') if c.get('effect') in st.fills else None
            fill = st.fills.get(eff) if eff else None
            row += [cell(ws, c.get('amount'), counts, st.money, font=font, border=border),
                    cell(ws, c.get('variance'), counts, st.money, font=font, fill=fill, border=border),
                    cell(ws, None if c.get('pct') is None else c['pct'] / 100.0, counts, st.percent, font=font,
                         fill=fill, border=border),
                    cell(ws, clean_text(c.get('effect') or '', 20), counts, font=font, fill=fill, border=border)]
        ws.append(row)


# One sheet per analysis


def analysis_sheet(wb, a, st, counts, taken):
    """An analysis's rows, amounts in the money format and shares in
    percent, a bold Total row, then its notes and method."""
    ws = wb.create_sheet(sheet_name(a.get('sheet') or 'Analysis', taken))
    cols = [clean_text(c, 100) for c in a.get('columns') or []]
    numeric = list(a.get('numeric') or [False] * len(cols))
    rows = a.get('rows') or []
    for j, c in enumerate(cols):
        width = max([len(c) + 2] + [len(str(r[j])) + 2 for r in rows[:2000] if not numeric[j]] + [14 if numeric[j] else 8])
        ws.column_dimensions[col_letter(j + 1)].width = min(width, 60)
    ws.freeze_panes = 'A2'
    ws.append([cell(ws, c, counts, font=st.bold, fill=st.head_fill, border=st.head_border, limit=255) for c in cols])
    fmts = [(st.percent if c == 'share' else INTEGER if c.endswith('_units') else st.money) if numeric[j] else None
            for j, c in enumerate(cols)]
    for r in rows:
        total = bool(r) and r[0] == 'Total'
        ws.append([cell(ws, x, counts, f, font=st.bold if total else None, border=st.total_border if total else None)
                   for x, f in zip(r, fmts)])
    if rows and cols:
        ws.auto_filter.ref = 'A1:%s%d' % (col_letter(len(cols)), len(rows) + 1)
    ws.append([])
    if a.get('left_out'):
        ws.append([cell(ws, a['left_out'], counts)])
    for n in (a.get('notes') or [])[:MAX_NOTES]:
        ws.append([cell(ws, n, counts)])
    if a.get('method'):
        ws.append([cell(ws, 'Method: ' + a['method'], counts)])


# One sheet per table the session saved


def table_sheets(wb, t, data, st, counts, taken):
    """The sheets of one saved file (a workbook may hold several tables),
    each with what was left out."""
    made = []
    try:
        frames = read_table(os.path.join(data, t['file']), t.get('kind') or '')
    except Exception as e:
        return [{'sheet': None, 'from': t.get('name'), 'rows': 0,
                 'notes': ['not read: %s: %s' % (type(e).__name__, clean_text(str(e), 300))]}]
    for part, df in frames:
        name = t.get('name') or 'Table'
        base = os.path.splitext(name)[0] if not part else '%s %s' % (os.path.splitext(name)[0], part)
        ws = wb.create_sheet(sheet_name(base, taken))
        made.append(_table_sheet(ws, df, t, part, st, counts))
    return made


def read_table(path, kind):
    """A saved file as (part, DataFrame) pairs: a workbook's sheets, one
    frame otherwise. Text stays text: nothing is evaluated."""
    import pandas as pd
    if kind in ('csv', 'tsv', 'txt'):
        sep = '\t' if kind == 'tsv' else None
        return [('', pd.read_csv(path, sep=sep, engine='python' if sep is None else 'c', nrows=MAX_ROWS + 1))]
    if kind == 'parquet':
        return [('', _flat(pd.read_parquet(path)))]
    if kind == 'feather':
        return [('', _flat(pd.read_feather(path)))]
    if kind == 'json':
        return [('', pd.read_json(path))]
    if kind in ('xlsx', 'xlsm', 'xls', 'ods'):
        sheets = pd.read_excel(path, sheet_name=None, nrows=MAX_ROWS + 1)
        return [(str(k) if len(sheets) > 1 else '', df) for k, df in sheets.items()]
    raise ValueError('not a table quarry reads (%s)' % kind)


def _flat(df):
    import pandas as pd
    if not isinstance(df.index, pd.RangeIndex):
        df = df.reset_index()
    return df


def _table_sheet(ws, df, t, part, st, counts):
    notes = []
    rows = len(df)
    if rows > MAX_ROWS:
        df = df.iloc[:MAX_ROWS]
        notes.append('the first %s of its %s rows (a sheet holds no more)' % (grouped(MAX_ROWS), grouped(rows)))
    cols = [' '.join(str(x) for x in c) if isinstance(c, tuple) else c for c in df.columns]
    kinds = [_column_kind(df.iloc[:, j]) for j in range(df.shape[1])]
    for j, c in enumerate(cols):
        ws.column_dimensions[col_letter(j + 1)].width = _width(c, df.iloc[:, j], kinds[j])
    ws.freeze_panes = 'A2'
    before = counts.cut, counts.guarded, counts.controls
    ws.append([cell(ws, c, counts, font=st.bold, fill=st.head_fill, border=st.head_border, limit=255) for c in cols])
    fmts = [{'int': INTEGER, 'float': DECIMAL}.get(k) for k in kinds]
    for values in df.itertuples(index=False, name=None):
        ws.append([cell(ws, x, counts, f) for x, f in zip(values, fmts)])
    if len(df) and len(cols):
        ws.auto_filter.ref = 'A1:%s%d' % (col_letter(len(cols)), len(df) + 1)
    cut, guarded, controls = counts.cut - before[0], counts.guarded - before[1], counts.controls - before[2]
    if cut:
        notes.append('%s cut to %s characters' % (plural(cut, 'text cell'), grouped(TEXT_MAX)))
    if controls:
        notes.append('control characters removed from %s' % plural(controls, 'cell'))
    if guarded:
        notes.append('%s starting like a formula kept as text' % plural(guarded, 'cell'))
    return {'sheet': ws.title, 'from': t.get('name'), 'part': part, 'cell': t.get('cell'), 'rows': rows,
            'columns': len(cols), 'notes': notes}


def _column_kind(s):
    import pandas as pd
    if pd.api.types.is_bool_dtype(s):
        return 'bool'
    if pd.api.types.is_integer_dtype(s):
        return 'int'
    if pd.api.types.is_float_dtype(s):
        return 'float'
    return 'other'


def _width(name, s, kind):
    """As wide as the column's name and its values as the sheet shows them
    (numbers grouped, with the format's decimals: '#####' otherwise), at
    most 60."""
    import pandas as pd
    sample = s.iloc[:2000]
    shown = {'int': '{:,.0f}', 'float': '{:,.2f}'}.get(kind)
    try:
        if shown:
            texts = sample.map(lambda x: shown.format(x) if pd.notna(x) else '')
        else:
            texts = sample.astype(str)
        longest = int(texts.str.len().max()) if len(sample) else 0
    except Exception:
        longest = 12
    return max(8, min(60, max(len(str(name)), longest) + 2))


# Sources and Code


def sources_sheet(wb, spec, made, st, counts):
    ws = wb.create_sheet('Sources')
    src = spec.get('sources') or {}
    for c, w in zip('ABCDEF', (22, 48, 14, 12, 68, 40)):
        ws.column_dimensions[c].width = w

    def head(*names):
        ws.append([cell(ws, n, counts, font=st.bold, fill=st.head_fill, border=st.head_border) for n in names])

    ws.append([cell(ws, 'Sources', counts, font=st.title)])
    for k, label in (('question', 'Question'), ('model', 'Model'), ('date', 'Date'), ('session', 'Session'),
                     ('rerun_of', 'Rerun of'), ('generated', 'Written')):
        if spec.get(k):
            ws.append([cell(ws, label, counts, font=st.bold), cell(ws, spec[k], counts, limit=CELL_MAX, align=st.wrap)])
    ws.append([])
    files = src.get('files') or []
    if files:
        head('File', 'Where it was read', 'Size (bytes)', 'Size', 'SHA-256', 'Changes')
        for f in files:
            ws.append([cell(ws, f.get('name'), counts), cell(ws, f.get('path'), counts),
                       cell(ws, f.get('size'), counts, INTEGER), cell(ws, f.get('size_text'), counts),
                       cell(ws, f.get('sha256'), counts, font=st.code), cell(ws, '; '.join(f.get('changes') or []), counts)])
        ws.append([])
    dbs = src.get('databases') or []
    if dbs:
        head('Database', 'Where (user@host/db)')
        for d in dbs:
            ws.append([cell(ws, d.get('name'), counts), cell(ws, d.get('where'), counts)])
        ws.append([])
    if made:
        head('Sheet', 'From the file', 'Rows', 'Columns', 'Saved by', 'Notes')
        for m in made:
            ws.append([cell(ws, m.get('sheet') or '(none)', counts), cell(ws, m.get('from'), counts),
                       cell(ws, m.get('rows'), counts, INTEGER), cell(ws, m.get('columns'), counts, INTEGER),
                       cell(ws, ('cell %d' % m['cell']) if m.get('cell') else '', counts),
                       cell(ws, '; '.join(m.get('notes') or []), counts, limit=CELL_MAX)])
        ws.append([])
    words = counts.words()
    if words:
        ws.append([cell(ws, 'Cleaning', counts, font=st.bold), cell(ws, '; '.join(words), counts, limit=CELL_MAX)])


def code_sheet(wb, spec, st, counts):
    ws = wb.create_sheet('Code')
    ws.column_dimensions['A'].width = 7
    ws.column_dimensions['B'].width = 7
    ws.column_dimensions['C'].width = 120
    ws.freeze_panes = 'A2'
    ws.append([cell(ws, h, counts, font=st.bold, fill=st.head_fill, border=st.head_border) for h in ('Cell', 'Line', 'Code')])
    n = 0
    for c in spec.get('code') or []:
        if c.get('question'):
            ws.append([cell(ws, c.get('cell'), counts), None,
                       cell(ws, 'Question: ' + c['question'], counts, font=st.subtitle, limit=CELL_MAX)])
        for i, line in enumerate(clean_text(c.get('code') or '', 10 ** 9, lines=True).split('\n'), 1):
            if n >= MAX_CODE_LINES:
                ws.append([None, None, cell(ws, 'the rest of the code is in the session record', counts,
                                            font=st.subtitle)])
                return
            ws.append([cell(ws, c.get('cell'), counts), cell(ws, i, counts),
                       cell(ws, line, counts, font=st.code, limit=CELL_MAX)])
            n += 1


def col_letter(n):
    from openpyxl.utils import get_column_letter
    return get_column_letter(n)
