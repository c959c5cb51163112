# The header of a variance() input (sent with kernel.py): which row (or two)
# names the columns, and what each column's name says: a side (actual,
# budget, variance, percent), a period, a span of periods or a total. An
# export often has a row of periods over a row of sides ('Jan 2026' over
# 'Actual', 'Budget', 'over Budget', '% of Budget'); the periods are carried
# over the columns they head.
HEADER_SCAN_ROWS = 60


class Column:
    """A column by position: its header text and what it says."""

    def __init__(self, pos, text, raw, group=None):
        self.pos, self.text, self.group = pos, text, group  # group: the text of the row above, carried over
        self.side, self.period, self.span, self.total = None, None, None, False
        self.role = None  # set by the layout: 'amount', 'label', 'code', 'kind', 'scenario', 'period', 'year'
        self.raw = raw  # the header cell as it was (a datetime for an Excel date)

    def describe(self, years_ok):
        self.side, rest = side_of(self.text)
        self.period_text = None
        parts = list(self.raw) if isinstance(self.raw, tuple) else [self.raw] if not isinstance(self.raw, str) else []
        for t in parts + [self.text, rest]:
            if t is None or (isinstance(t, str) and not t.strip()):
                continue
            self.period = period_of(t, years_ok)
            if self.period:
                if self.group and period_of(self.group, years_ok) == self.period:
                    self.period_text = self.group
                elif isinstance(t, str) and not self.side:
                    self.period_text = t.strip()
                else:
                    self.period_text = period_label(self.period)
                return
            self.span = period_range(t) if isinstance(t, str) else None
            if self.span:
                return
        self.total = bool(rest and TOTAL_HEADERS.match(fold_text(rest)))


def side_of(text):
    """(side, the text without the side's words) of a column header."""
    folded = fold_text(text)
    for side, rx in SIDE_WORDS:
        if rx.search(folded):
            light = fold_period(text)
            m = rx.search(light)
            rest = (light[: m.start()] + ' ' + light[m.end() :]) if m else rx.sub(' ', folded)
            return side, rest.strip(' .,:;()[]-')
    return None, str(text).strip()


def scenario_side(value):
    """'actual' or 'budget' for a scenario column's value ('Actual', 'Ist',
    'Budget 2026', 'Plan'), by the words of headers; None for the rest."""
    side, _ = side_of(str(value))
    return side if side in ('actual', 'budget') else None


def cell_text(v):
    if v is None:
        return ''
    if isinstance(v, tuple):
        return ' '.join(t for t in map(cell_text, v) if t)
    if isinstance(v, float) and v != v:
        return ''
    return str(v).strip()


def texts_of(col):
    """A column's cells as stripped text ('' for none), fast for a column
    of strings (a file read as a grid)."""
    import pandas as pd

    if col.dtype == object and pd.api.types.infer_dtype(col, skipna=False) == 'string':
        return col.str.strip()
    return col.map(cell_text)


def _says(v, years_ok):
    """Whether a header cell names a side, a period or a span."""
    t = cell_text(v)
    if not t:
        return False
    if not isinstance(v, str) and period_of(v) is not None:
        return True
    if side_of(t)[0]:
        return True
    return period_of(t, years_ok) is not None or period_range(t) is not None


class Header:
    """rows: indices of the frame's rows that are the header (-1 for the
    frame's own column names); body: the first row of the body; title: the
    text of the rows above; columns: a Column per position."""

    def __init__(self, rows, body, title, columns):
        self.rows, self.body, self.title, self.columns = rows, body, title, columns


def find_header(inp):
    import pandas as pd  # noqa: F401  (kept: waits here for the imports' thread's pandas)

    frame = inp.frame
    top = []
    if not inp.raw:
        names = list(frame.columns)  # a pivot's ('amount', 'Jan') stays a tuple: each part may say a period
        top.append((-1, names))
    n = min(len(frame), HEADER_SCAN_ROWS)
    for i in range(n):
        top.append((i, list(frame.iloc[i])))
    years = sum(1 for _, cells in top for c in cells if _BARE_YEAR.match(cell_text(c)))
    years_ok = years >= 2
    best, best_score = None, 0
    says = []
    for k, (_i, cells) in enumerate(top):
        filled = [j for j, c in enumerate(cells) if cell_text(c)]
        says.append(frozenset(j for j in filled if _says(cells[j], years_ok)) if len(filled) >= 2 else frozenset())
        if len(says[k]) > best_score:
            best, best_score = k, len(says[k])
    if best is not None and _data_run(says, best):
        best = None  # the same cells say it row after row: data (a date, 'Actual'), not names
    if best is None or (not inp.raw and best > 0 and not _generic(top[0][1])):
        best = _plain_header(inp, top)
    rows = [top[best][0]] if best is not None else []
    cells = list(top[best][1]) if best is not None else [None] * frame.shape[1]
    upper = None
    if best is not None and best > 0:
        # A row of periods over the sides: its cells stand over the columns
        # the header row names (a title's one cell stands over the labels).
        first = min((j for j, c in enumerate(cells) if _says(c, years_ok)), default=0)
        above = [c for j, c in enumerate(top[best - 1][1]) if cell_text(c)]
        over = all(j >= first for j, c in enumerate(top[best - 1][1]) if cell_text(c))
        if (
            above
            and over
            and all(_says(c, years_ok) or TOTAL_HEADERS.match(fold_text(cell_text(c))) for c in above)
            and not (inp.raw is False and top[best - 1][0] == -1 and _generic(top[best - 1][1]))
        ):
            upper = top[best - 1][1]
            rows.insert(0, top[best - 1][0])
    texts = []
    carried = None
    groups = []
    for j in range(frame.shape[1]):
        own = cell_text(cells[j]) if j < len(cells) else ''
        raw = cells[j] if j < len(cells) else None
        if upper is not None:
            up = cell_text(upper[j]) if j < len(upper) else ''
            if up:
                carried = up
                raw = upper[j] if not own else raw
            elif not own:
                carried = None  # a blank column ends the group
            if carried and own:
                own = carried + ' ' + own
            elif carried and not own:
                own = carried
        if not own and not inp.raw and best is None:
            own = cell_text(frame.columns[j])
        texts.append((own, raw))
        groups.append(carried if upper is not None else None)
    columns = [Column(j, t, r, g) for j, ((t, r), g) in enumerate(zip(texts, groups))]
    for c in columns:
        c.describe(years_ok)
    body = (rows[-1] + 1) if rows else 0
    first = rows[0] if rows else body
    title = [' '.join(cell_text(c) for c in frame.iloc[i] if cell_text(c)) for i in range(max(first, 0))]
    return Header(rows, body, [t for t in title if t], columns)


def _data_run(says, k):
    """Whether the rows after k say things in the same columns as k does:
    long data ('2026-01-15', ..., 'Actual') rather than a header."""
    after = says[k + 1 : k + 4]
    return len(after) >= 2 and all(a and len(a & says[k]) * 2 >= len(says[k]) for a in after)


def _generic(names):
    """Column names pandas made up: 'Unnamed: 3', 0, 1, 2."""
    return all(isinstance(c, int) or cell_text(c).startswith('Unnamed: ') or not cell_text(c) for c in names)


def _plain_header(inp, top):
    """A header naming no side or period ('account,amount'): the frame's
    own names, or in a grid the row the profile's table finder takes."""
    if not inp.raw:
        return None if _generic(top[0][1]) else 0
    rows = [[cell_text(c) for c in cells] for _, cells in top]
    kinds = {}

    def kind_of(i, j):
        k = kinds.get((i, j))
        if k is None:
            k = kinds[(i, j)] = profile_mod.kind(rows[i][j]) if j < len(rows[i]) else 'e'
        return k

    t = profile_mod.find_table(rows, kind_of, partial=True, grid=True)
    return t.start if t.header else None
