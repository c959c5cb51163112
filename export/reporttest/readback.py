# Reads a workbook back with openpyxl, as a reader of the report would,
# and prints what the tests check as JSON: each sheet's freeze, filter,
# pictures and column widths, its first rows cell by cell (value, type,
# number format, fill, bold, quote prefix), and over every cell: how many
# are formulas, how many strings start like one, hold control characters,
# and the longest.
import json, re, sys
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

FIRST = int(sys.argv[2]) if len(sys.argv) > 2 else 60
CONTROL = re.compile('[\x00-\x1f\x7f-\x9f]')


def fill(c):
    f = c.fill
    if f is None or f.fill_type is None:
        return None
    return (f.fgColor.rgb or '')[-6:]


def widths(ws):
    # A dimension may span columns (min..max): each gets its width.
    out = {}
    for d in ws.column_dimensions.values():
        if d.width:
            for i in range(d.min or 1, (d.max or d.min or 1) + 1):
                out[get_column_letter(i)] = d.width
    return out


wb = load_workbook(sys.argv[1])
out = {'sheets': wb.sheetnames, 'detail': {}}
for ws in wb.worksheets:
    d = {'freeze': ws.freeze_panes, 'filter': ws.auto_filter.ref, 'images': len(ws._images),
         'rows': ws.max_row, 'columns': ws.max_column, 'formulas': 0, 'formula_like': 0, 'quoted': 0,
         'control': 0, 'longest': 0, 'first': [], 'widths': widths(ws)}
    for i, row in enumerate(ws.iter_rows()):
        keep = []
        for c in row:
            v = c.value
            if c.data_type == 'f':
                d['formulas'] += 1
            if isinstance(v, str):
                d['longest'] = max(d['longest'], len(v))
                if v[:1] in ('=', '+', '-', '@', '\t', '\r'):
                    d['formula_like'] += 1
                    d['quoted'] += bool(c.quotePrefix)
                if CONTROL.search(v.replace('\n', '')):
                    d['control'] += 1
            if i < FIRST and v is not None:
                keep.append({'at': c.coordinate, 'v': v if not hasattr(v, 'isoformat') else v.isoformat(),
                             't': c.data_type, 'fmt': c.number_format, 'fill': fill(c), 'bold': bool(c.font and c.font.b),
                             'quote': bool(c.quotePrefix)})
        if keep:
            d['first'].append(keep)
    out['detail'][ws.title] = d
json.dump(out, sys.stdout)
