# quarry's report builder, part 2 of 4: cells of the workbook. Every value
# goes through cell(): numbers stay numbers, text is cleaned (report_text)
# and written as a string cell, never a formula, whatever it starts with.
import copy
import datetime

INTEGER = '#,##0'
BOOLEAN = '"TRUE";"TRUE";"FALSE"'  # Excel shows a bool so anyway; LibreOffice needs it said
DECIMAL = '#,##0.00'
DATE = 'yyyy-mm-dd'
DATETIME = 'yyyy-mm-dd hh:mm:ss'
CODE_FONT = 'Courier New'
FONT = 'Calibri'
GREY = '595959'
HEAD_FILL = 'E7E6E6'
BETTER = ('C6EFCE', '006100')  # fill, font: Excel's Good
WORSE = ('FFC7CE', '9C0006')   # Excel's Bad
MARK = 'C04000'                # an unverified number


class Styles:
    """The few styles of the report, made once (openpyxl keeps one entry
    per distinct style in the file)."""

    def __init__(self, formats):
        self.money, self.percent = formats['money'], formats['percent']  # the host's (report_numbers.go)
        from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
        self.Font, self.Alignment = Font, Alignment
        self.bold = Font(name=FONT, bold=True)
        self.title = Font(name=FONT, bold=True, size=14)
        self.subtitle = Font(name=FONT, italic=True, color=GREY)
        self.head_fill = PatternFill('solid', fgColor=HEAD_FILL)
        self.head_border = Border(bottom=Side(style='thin'))
        self.total_border = Border(top=Side(style='thin'), bottom=Side(style='double'))
        self.fills = {'better': PatternFill('solid', fgColor=BETTER[0]), 'worse': PatternFill('solid', fgColor=WORSE[0])}
        self.fonts = {'better': Font(name=FONT, color=BETTER[1]), 'worse': Font(name=FONT, color=WORSE[1])}
        self.bold_fonts = {'better': Font(name=FONT, bold=True, color=BETTER[1]),
                           'worse': Font(name=FONT, bold=True, color=WORSE[1])}
        self.code = Font(name=CODE_FONT, size=10)
        self.wrap = Alignment(wrap_text=True, vertical='top')
        self.top = Alignment(vertical='top')


def cell(ws, v, counts, fmt=None, font=None, fill=None, border=None, align=None, limit=None):
    """A write-only cell holding v: a number, a bool, a date, or text that
    is only ever a string (openpyxl would take '=...' for a formula)."""
    from openpyxl.cell import WriteOnlyCell
    c = None
    n = number(v)
    if n is not None:
        if isinstance(n, int) and not isinstance(n, bool) and abs(n) >= BIG_INT:
            counts.big_ints += 1
            v = str(n)
        else:
            c = WriteOnlyCell(ws, value=n)
            if fmt:
                c.number_format = fmt
            elif isinstance(n, bool):
                c.number_format = BOOLEAN
    elif v is None or _missing(v):
        c = WriteOnlyCell(ws, value=None)
    elif isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        c = _date_cell(ws, v, counts)
    if c is None:
        t = clean_text(v, limit or TEXT_MAX, counts)
        c = WriteOnlyCell(ws, value=t)
        c.data_type = 's'
        if formula_like(t):
            counts.guarded += 1
            c.quotePrefix = True  # Excel and LibreOffice keep it text when edited
    _style(c, font, fill, border, align)
    return c


_styles_made = {}


def _style(c, font, fill, border, align):
    """Gives c its style. openpyxl looks each part up in the workbook's
    lists (hashing every attribute) on each assignment; a style met
    before is copied whole, which keeps a million cells fast."""
    if font is None and fill is None and border is None and align is None and not c.has_style:
        return
    key = (id(c.parent.parent), c.number_format, c.quotePrefix, id(font), id(fill), id(border), id(align))
    made = _styles_made.get(key)
    if made is not None:
        c._style = copy.copy(made)
        return
    if font is not None:
        c.font = font
    if fill is not None:
        c.fill = fill
    if border is not None:
        c.border = border
    if align is not None:
        c.alignment = align
    _styles_made[key] = copy.copy(c._style)


def _missing(v):
    """pandas' and numpy's missing values (NaN, NaT, NA), without asking
    pandas for each cell."""
    if isinstance(v, float):
        return v != v
    name = type(v).__name__
    if name in ('NaTType', 'NAType', 'NoneType'):
        return True
    return name in ('datetime64', 'timedelta64') and str(v) == 'NaT'


def _date_cell(ws, v, counts):
    from openpyxl.cell import WriteOnlyCell
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)  # spreadsheets have no time zones
    if isinstance(v, datetime.datetime) and (v.year < 1900 or v.year > 9999):
        return None
    c = WriteOnlyCell(ws, value=v)
    if isinstance(v, datetime.datetime):
        c.number_format = DATE if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0) else DATETIME
    elif isinstance(v, datetime.date):
        c.number_format = DATE
    return c


def line_labels(ln, n):
    """A variance line's n labels, blanks first where it has fewer."""
    labels = list(ln.get('label') or [])
    return ([''] * (n - len(labels)) + labels)[-n:] if n else labels


def rich(ws, runs, st):
    """A cell of text runs (bold, code, an unverified number, which the
    host has put in ground's brackets, underlined in colour)."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont
    parts, plain, used = [], True, 0
    for r in runs:
        t = clean_text(r.get('t', ''), CELL_MAX - used)
        if not t:
            continue
        used += len(t)
        mark = r.get('mark') == 'unverified'
        legend = r.get('mark') == 'legend'
        if r.get('b') or r.get('mono') or mark or legend or r.get('i'):
            plain = False
            parts.append(TextBlock(InlineFont(b=bool(r.get('b')) or None, i=bool(r.get('i')) or None,
                                              rFont=CODE_FONT if r.get('mono') else FONT,
                                              color=MARK if mark or legend else None, u='single' if mark else None), t))
        else:
            parts.append(t)
        if used >= CELL_MAX - 1:
            break
    if plain:
        c = WriteOnlyCell(ws, value=''.join(parts))
        c.data_type = 's'
    else:
        c = WriteOnlyCell(ws, value=CellRichText(parts))
    c.alignment = st.top
    return c


def wrap_runs(runs, width):
    """Runs laid out in lines of at most width characters, broken at
    spaces (a longer word is cut): a list of lines, each a list of runs."""
    text = ''.join(r.get('t', '') for r in runs)
    owner = []
    for i, r in enumerate(runs):
        owner += [i] * len(r.get('t', ''))
    breaks, start = [], 0
    while start < len(text):
        end = min(len(text), start + width)
        if end < len(text):
            sp = text.rfind(' ', start, end + 1)
            if sp > start:
                end = sp
        breaks.append((start, end))
        start = end
        while start < len(text) and text[start] == ' ':
            start += 1
    lines = []
    for s, e in breaks or [(0, 0)]:
        line, i = [], s
        while i < e:
            j = i
            while j < e and owner[j] == owner[i]:
                j += 1
            r = dict(runs[owner[i]])
            r['t'] = text[i:j]
            line.append(r)
            i = j
        lines.append(line)
    return lines
