# The rows of a variance() input as lines (sent with kernel.py). Walking an
# export top to bottom: section headers (a label and no amounts) open a
# section that gives its lines their kind; 'Total X' closes section X; Gross
# Profit, Net Income and their kin are results; none of these is a line.
# Each total keeps the ranges of lines it may total, so it can be checked
# once the kinds and the periods are known. Long data (a period and a value
# column) is summed into one line per label and period.
import re
import unicodedata

_CONTROL = re.compile(r'[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+')
_EMBEDDED_CODE = (
    re.compile(r'^(?P<code>[A-Za-z]{0,2}\d[\d.\-]*\d|\d)\s*(?:[·•:|\-–—]\s*|\s+)(?P<name>\S.*)$'),
    re.compile(r'^(?P<name>\S.*?)\s*[(\[](?P<code>[A-Za-z]{0,2}\d[\d.\-]*)[)\]]$'),
)


def clean_label(v):
    """A label as text: control and invisible characters out, spaces collapsed."""
    t = cell_text(v)
    if _CONTROL.search(t):
        t = _CONTROL.sub(' ', t)
    return ' '.join(t.split())


class Line:
    def __init__(self, labels, name, code, row):
        self.labels, self.name, self.code, self.row = labels, name, code, row
        self.label = labels[-1]
        self.account = code  # the account number the kinds may be read from
        self.section = self.section_kind = self.section_source = None
        self.column_kind = self.kind_column = None


class TotalRow:
    """A subtotal or total of the file: its label, what it is ('section',
    'profit', 'grand'), its row, and the line ranges (start, end) it may total."""

    def __init__(self, label, what, row, ranges):
        self.label, self.what, self.row, self.ranges = label, what, row, ranges


class Structure:
    def __init__(self):
        self.lines, self.totals, self.footer = [], [], []
        self.amounts = {}  # side -> {period key or None: float ndarray over lines}
        self.total_amounts = {}  # side -> {period key or None: float ndarray over totals}
        self.period_text = {}  # period key -> the header's text
        self.notes = []
        self.long = False


def total_kind(label):
    f = fold_text(label)
    if GRAND_TOTAL.match(f):
        return 'grand', None
    m = SECTION_TOTAL.match(f)
    if m:
        rest = m.group('rest') or m.group('before')
        return 'section', _strip_articles(rest) if rest else None
    if PROFIT_LABELS.match(f):
        return 'profit', None
    return None, None


_ARTICLES = re.compile(
    r'^(?:of|for|the|des|de|du|de la|del|de los|de las|der|die|das|dei|delle|degli|van|do|da|'
    r'dos|das|le|la|les) '
)


def _strip_articles(s):
    return _ARTICLES.sub('', s)


def _section_columns(lay):
    """The amount columns per side and period, periods in column order;
    aggregate columns (Total, a span) only where a side has no periods."""
    out, notes = {}, []
    for side, cols in lay.sides.items():
        periods = [c for c in cols if c.period]
        if periods:
            left = [c for c in cols if not c.period]
            if left:
                notes.append(
                    'the %s columns %s are left out: the periods are summed instead'
                    % (side, quoted([c.text for c in left]))
                )
            chosen = {}
            for c in periods:
                if c.period in chosen:
                    notes.append('%s has two %s columns for %s: the first is used' % (lay.inp.name, side, c.text))
                    continue
                chosen[c.period] = c
            out[side] = chosen
        else:
            if len(cols) > 1:
                notes.append(
                    '%s has %d %s columns (%s): the first is used'
                    % (lay.inp.name, len(cols), side, quoted([c.text for c in cols]))
                )
            out[side] = {None: cols[0]}
    return out, notes


def structure_of(lay):
    if lay.value_pos is not None:
        return _long_structure(lay)
    import numpy as np

    st = Structure()
    cols, st.notes = _section_columns(lay)
    for side in cols:
        for key, c in cols[side].items():
            if key is not None:
                st.period_text.setdefault(key, c.period_text or period_label(key))
    body = lay.body
    positions = [c.pos for side in cols.values() for c in side.values()]
    matrix = np.column_stack([lay.amounts[p].to_numpy() for p in positions])
    has = ~np.isnan(matrix).all(axis=1)
    last = int(np.nonzero(has)[0][-1]) if has.any() else -1
    if lay.by_pos is not None:
        labels, codes = [lay.by_name.tolist()], lay.by_code
    else:
        labels = [body.iloc[:, p].tolist() for p in lay.label_pos]
        codes = body.iloc[:, lay.code_pos].tolist() if lay.code_pos is not None else None
    kinds = body.iloc[:, lay.kind_pos].tolist() if lay.kind_pos is not None else None
    rows_kept = []
    stack = []  # open sections: [name, folded, kind, kind_source, level, first line]
    prev_profit = 0
    levels = set()
    walk = []
    for r in range(len(body)):
        label, level = _row_label(labels, r)
        if not label and not has[r]:
            continue
        if r > last:
            if label:
                st.footer.append(label)
            continue
        walk.append((r, label, level))
        levels.add(level)
    indented = len(levels) > 1
    embedded = _embedded_codes([w[1] for w in walk if has[w[0]]]) if codes is None else False
    totals_of = {r: total_kind(label) for r, label, _ in walk if has[r] and label}
    closed = {rest for what, rest in totals_of.values() if what == 'section' and rest}
    # An export (a file, or a frame with total rows) heads sections with
    # bare labels; a plain table's empty row is only an empty line.
    report = lay.inp.raw or any(what for what, _ in totals_of.values())
    for w, (r, label, level) in enumerate(walk):
        following = walk[w + 1 : w + 2]
        if (
            not has[r]
            and label
            and (_opens_section(label, level, following, closed) or report and following and has[following[0][0]])
        ):
            while stack and (stack[-1][4] > level or (indented and stack[-1][4] == level)):
                stack.pop()
            parent = stack[-1] if stack else None
            # A section inside one of a kind keeps that kind unless its name
            # is a section's own ('Job Materials' under Income is income).
            own = section_kind(label) if section_named(label) or not parent or not parent[2] else None
            kind, source = (own, label) if own else ((parent[2], parent[3]) if parent else (None, None))
            stack.append([label, fold_text(label), kind, source, level, len(st.lines)])
            continue
        what, rest = totals_of.get(r, (None, None))
        n = len(st.lines)
        if what:
            ranges = _total_ranges(st, stack, what, rest, n, prev_profit)
            if what == 'profit':
                prev_profit = n
            st.totals.append(TotalRow(label, what, r, ranges))
            rows_kept.append(('t', r))
            continue
        name, code = label, None
        account = None
        if lay.by_pos is not None:
            account = codes[r] if codes is not None else None
        elif codes is not None:
            code = _code_text(codes[r])
        elif embedded:
            name, code = _split_code(label)
        if not label:
            name = '(no name, row %d)' % (body.index[r] + 1)
            st.notes.append('row %d has amounts but no name: kept as %r' % (body.index[r] + 1, name))
        if lay.by_pos is not None:
            shown = lay.by_labels[r]
        elif codes is not None:
            shown = (cell_text(codes[r]), name)
        else:
            shown = (label or name,)
        ln = Line(shown, name, code, body.index[r])
        ln.account = account or code
        if stack:
            ln.section, ln.section_source, ln.section_kind = stack[-1][0], stack[-1][3], stack[-1][2]
        if kinds is not None:
            ln.column_kind = kind_value(kinds[r]) if cell_text(kinds[r]) else None
            ln.kind_column = lay.columns[lay.kind_pos].text
        st.lines.append(ln)
        rows_kept.append(('l', r))
    line_rows = [r for t, r in rows_kept if t == 'l']
    total_rows = [r for t, r in rows_kept if t == 't']
    for side, per in cols.items():
        st.amounts[side] = {k: lay.amounts[c.pos].to_numpy()[line_rows] for k, c in per.items()}
        st.total_amounts[side] = {k: lay.amounts[c.pos].to_numpy()[total_rows] for k, c in per.items()}
    return st


def _opens_section(label, level, following, closed):
    """Whether a row with a label and no amounts heads a section: its name
    is a section's, a 'Total <name>' row closes it, or the next row is
    indented under it. Else it is a line with nothing in it."""
    if section_named(label):
        return True
    f = fold_text(label)
    if f in closed or any(_same_section(f, c) for c in closed):
        return True
    return bool(following) and following[0][2] > level


def _row_label(labels, r):
    for depth, col in enumerate(labels):
        v = col[r]
        raw = v if isinstance(v, str) else cell_text(v)
        t = clean_label(raw)
        if t:
            return t, depth * 1000 + (len(raw) - len(raw.lstrip()))
    return '', 0


def _total_ranges(st, stack, what, rest, n, prev_profit):
    if what == 'grand':
        return [(0, n)]
    if what == 'profit':
        out = [(0, n), (prev_profit, n)]
        if stack:
            out.append((stack[-1][5], n))
        return out
    if rest:
        for same in (lambda f: f == rest, lambda f: _same_section(f, rest)):
            for i in range(len(stack) - 1, -1, -1):
                if same(stack[i][1]):
                    start = stack[i][5]
                    del stack[i:]
                    return [(start, n)]
        for i in range(n - 1, -1, -1):
            if fold_text(st.lines[i].label) == rest or fold_text(st.lines[i].name) == rest:
                return [(i, n)]
    if stack:
        start = stack[-1][5]
        stack.pop()
        return [(start, n)]
    since = st.totals[-1].ranges[0][1] if st.totals else 0
    return [(since, n), (0, n)]


def _same_section(folded, rest):
    """'total 6000 payroll expenses' closes '6000 payroll expenses' and
    'less cost of sales' alike."""
    a = SECTION_PREFIX.sub('', folded)
    b = SECTION_PREFIX.sub('', rest)
    return a == b or a.endswith(' ' + b) or b.endswith(' ' + a)


def _embedded_codes(labels):
    """Whether most lines' labels start (or end) with an account number."""
    if not labels:
        return False
    hit = sum(1 for t in labels if any(rx.match(t) for rx in _EMBEDDED_CODE))
    return hit * 2 > len(labels)


def _split_code(label):
    for rx in _EMBEDDED_CODE:
        m = rx.match(label)
        if m:
            return m.group('name').strip(), _code_text(m.group('code'))
    return label, None


def _code_text(v):
    """An account code as text to match on: '4000', '4000.0' -> '4000'."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, float) and v == int(v):
        v = int(v)
    t = unicodedata.normalize('NFKC', str(v)).strip().upper()
    return t or None
