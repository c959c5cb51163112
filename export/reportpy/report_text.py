# quarry's report builder, part 1 of 4: the rules for text and numbers
# that leave quarry in a workbook or a PDF. The builder runs in a fresh
# sandbox no model code ran in, on data from the session's record and the
# files its cells saved: every string here came from data, a model or a
# notebook, so each is cleaned, cut and kept from being a formula here, in
# one place, whatever sheet or page it lands on.
import math
import re

TEXT_MAX = 1000      # characters of one cell of data: a label, a table's text
CELL_MAX = 32767     # characters Excel keeps in one cell (code, commentary)
SHEET_NAME_MAX = 31  # Excel's limit on a sheet's name
BIG_INT = 2 ** 53    # integers beyond this lose digits as spreadsheet numbers
# A cell whose text starts so is a formula to a spreadsheet or to whoever
# pastes it into one (CSV injection): =, +, -, @, and tab or CR before them.
FORMULA_START = ('=', '+', '-', '@', '\t', '\r', '\uff1d', '\uff0b', '\uff0d', '\uff20')
# C0 and C1 controls, DEL, zero-width and direction marks, the byte-order
# mark and the two non-characters XML refuses.
_CONTROL = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]')
_SPACE = re.compile('[\t\n\r]')
_SHEET_FORBIDDEN = re.compile(r'[\[\]:*?/\\]')


class Counts:
    """What the cleaning did, for the report to say: text cut, control
    characters removed, cells kept from being formulas."""

    def __init__(self):
        self.cut = 0
        self.controls = 0
        self.guarded = 0
        self.big_ints = 0

    def words(self):
        out = []
        if self.cut:
            out.append('%s cut to %s characters' % (plural(self.cut, 'text cell'), grouped(TEXT_MAX)))
        if self.controls:
            out.append('control characters removed from %s' % plural(self.controls, 'cell'))
        if self.guarded:
            out.append('%s starting like a formula (=, +, -, @) kept as text' % plural(self.guarded, 'cell'))
        if self.big_ints:
            out.append('%s longer than 15 digits kept as text' % plural(self.big_ints, 'integer'))
        return out


def plural(n, word):
    return '%s %s%s' % (grouped(n), word, '' if n == 1 else 's')


def grouped(n):
    return '{:,}'.format(n)


def clean_text(s, limit=TEXT_MAX, counts=None, lines=False):
    """One cell's text: valid UTF-8, no control characters (tab, CR and LF
    become spaces, unless lines keeps LF), at most limit characters, the
    cut said by an ellipsis."""
    if not isinstance(s, str):
        s = str(s)
    s = s.encode('utf-8', 'replace').decode('utf-8')  # lone surrogates
    had = _CONTROL.search(s) is not None  # tabs and line breaks are spacing, not counted
    if lines:
        s = _CONTROL.sub('', s.replace('\r\n', '\n').replace('\r', '\n').replace('\t', '    '))
    else:
        s = _CONTROL.sub('', _SPACE.sub(' ', s))
    if had and counts is not None:
        counts.controls += 1
    if len(s) > limit:
        s = s[:limit - 1] + '\u2026'
        if counts is not None:
            counts.cut += 1
    return s


def formula_like(s):
    return s.startswith(FORMULA_START)


def number(v):
    """A value as a spreadsheet number, or None when it is not one (or not
    finite): bools stay bools."""
    if isinstance(v, bool):
        return v
    try:
        import numpy as np
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, np.integer):
            v = int(v)
        elif isinstance(v, np.floating):
            v = float(v)
    except ImportError:
        pass
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    return None


def sheet_name(raw, taken):
    """A sheet's name Excel accepts, unique (case-insensitively) among
    taken, which it joins: at most 31 characters, none of []:*?/\\, no
    control characters, no quote at either end, not 'History' (Excel's)."""
    name = _SHEET_FORBIDDEN.sub('_', clean_text(raw, 200)).strip().strip("'").strip()
    if not name or name.lower() == 'history':
        name = 'Table'
    name = name[:SHEET_NAME_MAX].rstrip().rstrip("'")
    base, n = name, 2
    while name.lower() in taken:
        suffix = ' (%d)' % n
        name = base[:SHEET_NAME_MAX - len(suffix)].rstrip() + suffix
        n += 1
    taken.add(name.lower())
    return name
