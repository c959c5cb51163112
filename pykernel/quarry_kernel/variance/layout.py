# What each column of a variance() input holds (sent with kernel.py): the
# amounts of each side by period, the line labels (several outline columns
# in an export that indents by column), an account code, a kind column, and
# in long data the period, the year and the scenario (Actual/Budget) of each
# row. Amount cells are read as numbers here, once.
import re

_CODE_VALUE = re.compile(r'^[A-Za-z]{0,2}\d[\d.\-/]*$')


class Layout:
    def __init__(self, inp, header):
        self.inp, self.header = inp, header
        self.body = inp.frame.iloc[header.body :]
        self.columns = header.columns
        self.amounts = {}  # position -> float Series over the body
        self.label_pos = []  # outline columns, left to right
        self.code_pos = self.kind_pos = self.scenario_pos = self.period_pos = self.year_pos = None
        self.value_pos = None  # long data: the amount column
        self.by_pos = self.by_labels = self.by_name = self.by_code = None  # the lines by= names
        self.sides = {}  # 'actual'/'budget' -> {period key or None: position}
        self.notes = []
        self.decimal, self.thousands, self.currency = '.', None, None

    def name_of(self, pos):
        t = self.columns[pos].text
        return t if t and not t.startswith('Unnamed: ') else None


def layout_of(inp, role, value=None, by=None, kind=None, both=False):
    """role: 'actual' or 'budget', the side of period columns that name
    none; both: the input holds both sides (budget left out)."""
    import pandas as pd  # noqa: F401  (kept: waits here for the imports' thread's pandas)

    lay = Layout(inp, find_header(inp))
    lay.role = role
    body = lay.body
    if body.shape[0] == 0:
        raise ValueError('%s hold no rows under the header' % inp.name)
    named = _named_positions(lay, by, value, kind)
    wordy = {j for j in range(body.shape[1]) if _wordy(body.iloc[:, j])}
    objects = [body.iloc[:, j] for j in range(body.shape[1]) if body.iloc[:, j].dtype == object and j not in wordy]
    lay.decimal, lay.thousands = number_format_of(objects)
    lay.currency = currency_of(objects)
    share = {}
    for c in lay.columns:
        if c.pos in named.get('text', ()) or c.pos in wordy:
            continue
        col = body.iloc[:, c.pos]
        vals = money_values(col, lay.decimal, lay.thousands)
        if col.dtype == object:
            filled = int((texts_of(col) != '').sum())
        else:  # an infinity is no amount, and no text either
            filled = int(vals.notna().sum())
        share[c.pos] = (vals.notna().sum() / filled) if filled else 0.0
        if share[c.pos] > 0:
            lay.amounts[c.pos] = vals
    _amount_columns(lay, role, share, named, both)
    _other_columns(lay, share, named)
    return lay


def _named_positions(lay, by, value, kind):
    """Positions of the columns the call names: by (labels), value, kind."""
    out = {'text': set()}

    def find(name, what):
        for c in lay.columns:
            if c.text == str(name):
                return c.pos
        for c in lay.columns:
            if fold_text(c.text) == fold_text(name):
                return c.pos
        raise KeyError(
            '%s= names %r, but %s have no such column (they have: %s)'
            % (what, name, lay.inp.name, ', '.join(repr(c.text) for c in lay.columns[:30] if c.text))
        )

    if by is not None:
        out['by'] = [find(b, 'by') for b in by]
        out['text'].update(out['by'])
    if value is not None:
        out['value'] = find(value, 'value')
    if isinstance(kind, str) and fold_text(kind) not in KIND_VALUES:
        out['kind'] = find(kind, 'kind')
        out['text'].add(out['kind'])
    return out


def _amount_columns(lay, role, share, named, both):
    cols = [c for c in lay.columns if c.pos in lay.amounts and c.pos not in named['text']]
    if 'value' in named:
        lay.value_pos = named['value']
        if lay.value_pos not in lay.amounts:
            raise ValueError(
                'value=%r: the column holds no numbers in %s' % (lay.columns[lay.value_pos].text, lay.inp.name)
            )
        return
    marked = [c for c in cols if c.side in ('actual', 'budget') or (c.side is None and (c.period or c.span or c.total))]
    marked = [c for c in marked if share[c.pos] >= 0.3 or _mostly_blank(lay, c.pos)]
    if not marked:
        plain = [c for c in cols if share[c.pos] >= 0.8 and c.side is None and not _code_like(lay, c)]
        if not plain:
            raise ValueError(
                '%s have no column of amounts (the columns: %s)'
                % (lay.inp.name, ', '.join(repr(c.text) for c in lay.columns[:30]) or 'none')
            )
        if both:
            amt = [c for c in plain if AMOUNT_WORDS.search(fold_text(c.text))]
            plain = amt or plain
        if len(plain) > 1:
            amt = [c for c in plain if AMOUNT_WORDS.search(fold_text(c.text))]
            if len(amt) != 1:
                raise ValueError(
                    '%s have several columns of numbers (%s): say which holds the amounts with value='
                    % (lay.inp.name, ', '.join(repr(c.text) for c in plain[:12]))
                )
            lay.notes.append(
                '%s: the amounts are taken from %r, of the number columns %s (value= says otherwise)'
                % (lay.inp.name, amt[0].text, quoted([c.text for c in plain]))
            )
            plain = amt
        lay.value_pos = plain[0].pos
        return
    budgets = [c for c in marked if c.side == 'budget']
    for c in marked:
        side = c.side or role
        if side == 'actual' and c.side is None and both and budgets:
            side = 'actual'
        c.role = 'amount'
        lay.sides.setdefault(side, []).append(c)
    if both and 'budget' in lay.sides and 'actual' not in lay.sides:
        amt = [c for c in cols if c.side is None and c.role is None and AMOUNT_WORDS.search(fold_text(c.text))]
        if amt:
            amt[0].role = 'amount'
            lay.sides['actual'] = [amt[0]]
            lay.notes.append(
                'the column %r is taken for the actuals, beside %r' % (amt[0].text, lay.sides['budget'][0].text)
            )


def _wordy(col, sample=500):
    """A column of words (names, kinds), judged from its first cells: too
    few hold a digit for it to be amounts, so it is not parsed as them."""
    if col.dtype != object:
        return False
    vals = col.head(sample * 4)
    vals = vals[vals.map(lambda v: isinstance(v, str) and v.strip() != '')].head(sample)
    if len(vals) < 5:
        return False
    return vals.str.contains(r'\d', regex=True).mean() < 0.3


def _mostly_blank(lay, pos):
    col = lay.body.iloc[:, pos]
    return texts_of(col).eq('').mean() > 0.5 if col.dtype == object else col.isna().mean() > 0.5


def _code_like(lay, c):
    """A column of account numbers rather than amounts: named so, or whole
    numbers that are all distinct and none negative."""
    if CODE_HEADERS.search(fold_text(c.text)):
        return True
    v = lay.amounts[c.pos].dropna()
    if len(v) < 2 or (v < 0).any() or (v != v.round()).any() or v.duplicated().any():
        return False
    col = lay.body.iloc[:, c.pos]
    return col.dtype != object and fold_text(c.text) in ('', 'account', 'konto', 'compte', 'cuenta', 'conto')


def _other_columns(lay, share, named):
    body = lay.body
    used = {c.pos for cs in lay.sides.values() for c in cs}
    if lay.value_pos is not None:
        used.add(lay.value_pos)
    first_amount = min(used) if used else body.shape[1]
    rest = [c for c in lay.columns if c.pos not in used and c.side not in ('variance', 'pct')]
    if 'kind' in named:
        lay.kind_pos = named['kind']
    for c in rest:
        name = fold_text(c.text)
        col = body.iloc[:, c.pos]
        if c.pos in named.get('by', ()) or c.pos == lay.kind_pos:
            continue
        if lay.value_pos is not None and lay.period_pos is None and _period_column(lay, c, col, name):
            lay.period_pos = c.pos
            c.role = 'period'
        elif (
            lay.value_pos is not None
            and lay.year_pos is None
            and YEAR_HEADERS.search(name)
            and share.get(c.pos, 0) > 0.9
        ):
            lay.year_pos = c.pos
            c.role = 'year'
        elif lay.scenario_pos is None and _values_are(col, lambda v: side_of(v)[0] in ('actual', 'budget'), 10):
            lay.scenario_pos = c.pos
            c.role = 'scenario'
        elif (
            lay.kind_pos is None
            and _values_are(col, lambda v: kind_value(v) is not None, 12)
            and (KIND_HEADERS.search(name) or not name)
        ):
            lay.kind_pos = c.pos
            c.role = 'kind'
    if 'by' in named:
        _by_columns(lay, named['by'])
        return
    texty = [c for c in rest if c.role is None and (lay.value_pos is not None or c.pos < first_amount)]
    # A column of numbers is a code column only when named or shaped so ('qty' is not).
    codes = [
        c
        for c in texty
        if _codes(body.iloc[:, c.pos])
        and (
            CODE_HEADERS.search(fold_text(c.text))
            or body.iloc[:, c.pos].dtype == object
            or (c.pos in lay.amounts and _code_like(lay, c))
        )
    ]
    if codes and len(texty) > 1:
        lay.code_pos = codes[0].pos
        codes[0].role = 'code'
        texty = [c for c in texty if c.pos != lay.code_pos]
    labels = [c for c in texty if share.get(c.pos, 0) < 0.5 or c.pos < first_amount]
    if not labels and lay.code_pos is not None:
        labels = [lay.columns[lay.code_pos]]
        lay.code_pos = None
    if not labels:
        raise ValueError(
            '%s have no column naming the lines (the columns: %s): pass by= to name it'
            % (lay.inp.name, ', '.join(repr(c.text) for c in lay.columns[:30]))
        )
    if lay.inp.raw or lay.value_pos is None:
        lay.label_pos = [c.pos for c in labels if c.pos < first_amount] or [labels[0].pos]
    else:
        lay.label_pos = [max(labels, key=lambda c: body.iloc[:, c.pos].nunique()).pos]
    if len(lay.label_pos) > 1 and not _outline(body, lay.label_pos):
        best = max(lay.label_pos, key=lambda p: texts_of(body.iloc[:, p]).nunique())
        lay.label_pos = [best]
    for p in lay.label_pos:
        lay.columns[p].role = 'label'


def _by_columns(lay, positions):
    """The lines as by= names them: every by column is part of a line's
    identity; a column of codes among them is its code, the rest its name."""
    body = lay.body
    cols = [texts_of(body.iloc[:, p]).map(clean_label) for p in positions]
    code = next((i for i, p in enumerate(positions) if len(positions) > 1 and _codes(body.iloc[:, p])), None)
    lay.by_pos = list(positions)
    lay.by_labels = list(zip(*cols))
    # by= names the lines: all its columns are the name matched on.
    lay.by_name = cols[0] if len(cols) == 1 else cols[0].str.cat(cols[1:], sep=' · ')
    lay.by_code = body.iloc[:, positions[code]].map(_code_text).tolist() if code is not None else None
    lay.label_pos = [positions[-1]]
    for p in positions:
        lay.columns[p].role = 'label'


def _outline(body, positions):
    """Whether the columns are one label indented by column: a row fills
    at most one of them."""
    filled = sum((texts_of(body.iloc[:, p]) != '').astype(int) for p in positions)
    return bool((filled <= 1).mean() > 0.95)


def _codes(col, sample=2000):
    vals = texts_of(col.head(sample))
    vals = vals[vals != '']
    if not len(vals):
        return False
    return vals.map(lambda v: bool(_CODE_VALUE.match(v))).mean() > 0.8


def _values_are(col, test, most):
    """Whether a column holds at most `most` distinct values, each passing test."""
    uniq = [t for t in (cell_text(v) for v in col.dropna().unique()[: most * 4 + 1]) if t]
    uniq = list(dict.fromkeys(uniq))
    if not uniq or len(uniq) > most:
        return False
    return all(test(v) for v in uniq)


def _period_column(lay, c, col, name):
    if col.dtype.kind == 'M':
        return True
    if hasattr(col, 'dt') and str(col.dtype).startswith('period'):
        return True
    if not PERIOD_HEADERS.search(name) and not col.dtype == object:
        return False
    uniq = col.dropna().unique()[:500]
    if not len(uniq):
        return False
    if PERIOD_HEADERS.search(name) and all(isinstance(v, (int, float)) and v == int(v) and 1 <= v <= 16 for v in uniq):
        return True  # month numbers, with a year column beside them
    ok = sum(1 for v in uniq if period_of(v, years_ok=True) is not None)
    return ok >= 0.9 * len(uniq)


def kind_value(v):
    """'revenue' or 'cost' for a kind column's cell or a kind= value."""
    t = fold_text(v)
    if t in KIND_VALUES:
        return KIND_VALUES[t]
    return name_kind(t)[0] if t else None
