# CSV dialect detection for the profiler (sent with profile/front.py as one
# program). Every delimiter that occurs in the sample is tried with each quote
# character; the dialect whose rows are most alike in width and whose cells
# most look like values wins (the data-consistency measure of van den Burg et
# al., "Wrangling messy CSV files by detecting row and type patterns", 2019).
import collections
import csv
import io
import re

SNIFF_CHARS = 64 << 10
SNIFF_ROWS = 300
# Preferred on a tie, in this order; any other punctuation may still win.
USUAL_DELIMITERS = ',;\t|'
QUOTES = ('"', "'")

_NUMBER = re.compile(
    r'^[(]?[+-]?[$€£¥]?\s?(\d+|\d{1,3}([.,\' \u00a0\u202f]\d{3})+)?([.,]\d+)?'
    r'([eE][+-]?\d+)?\s?[%$€£¥]?[)]?-?$'
)
_DATE = re.compile(
    r'^(\d{1,4}[-./]\d{1,2}[-./]\d{1,4}|\d{4}\d{2}\d{2})'
    r'([ T]\d{1,2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$'
)
_TIME = re.compile(r'^\d{1,2}:\d{2}(:\d{2}([.,]\d+)?)?( ?[AaPp][Mm])?$')
_WORDS = re.compile(r'^[^\W_][\w\s.\-\'&()/+#%@:!?*]*$')
_URL = re.compile(r'^(https?://|www\.)\S+$|^[\w.+-]+@[\w-]+\.[\w.]+$')
_MISSING = frozenset(('na', 'n/a', 'nan', 'null', 'none', '-', '--', '.', '#n/a', '?'))


def kind(cell):
    """'e' empty, 'n' number, 'd' date or time, 't' text: what a cell of a
    CSV holds, judged from its text."""
    c = cell.strip()
    if not c:
        return 'e'
    if c[0].isdigit() or c[0] in '+-.(,$€£¥':
        if _DATE.match(c) or _TIME.match(c):
            return 'd'
        if any(ch.isdigit() for ch in c) and _NUMBER.match(c):
            return 'n'
    return 't'


def known(cell):
    """Whether a cell looks like a value of some type; a wrong dialect
    leaves delimiters and quotes inside cells, which matches none."""
    c = cell.strip()
    if not c or c.lower() in _MISSING or kind(c) != 't':
        return True
    return bool(_WORDS.match(c) or _URL.match(c))


def sample_lines(text):
    """The start of text cut at a line break, as one string."""
    t = text[:SNIFF_CHARS]
    if len(t) < len(text):
        cut = max(t.rfind('\n'), t.rfind('\r'))
        if cut > 0:
            t = t[: cut + 1]
    return t


def parse(text, delim, quote, skipinitialspace=False, limit=None, ends=None):
    """Rows of text under one dialect (blank lines kept as []), or None
    when the dialect cannot parse it. ends, when given, receives the line
    number each row ends on."""
    if delim == WHITESPACE:
        rows = [l.split() for l in text.splitlines()]
        rows = rows[:limit] if limit else rows
        if ends is not None:
            ends.extend(range(1, len(rows) + 1))
        return rows
    rows = []
    try:
        r = csv.reader(
            io.StringIO(text, newline=''),
            delimiter=delim,
            quotechar=quote,
            skipinitialspace=skipinitialspace,
            strict=False,
        )
        for row in r:
            rows.append(row)
            if ends is not None:
                ends.append(r.line_num)
            if limit and len(rows) >= limit:
                break
    except csv.Error:
        return None
    return rows


def consistency(rows):
    """Pattern score times type score: rows of one width whose cells all
    look like values score highest."""
    rows = [r for r in rows if r]
    if not rows:
        return 0.0
    widths = collections.Counter(len(r) for r in rows)
    pattern = sum(n * (w - 1) / w for w, n in widths.items()) / len(widths)
    cells = typed = 0
    for r in rows:
        for c in r:
            cells += 1
            typed += known(c)
    return pattern * max(typed / cells, 0.01)


def candidates(text):
    """Delimiter candidates: punctuation that occurs on most lines."""
    lines = [l for l in text.splitlines() if l.strip()][:SNIFF_ROWS]
    if not lines:
        return list(USUAL_DELIMITERS[:1])
    counts = collections.Counter()
    for l in lines:
        for ch in set(l):
            if not ch.isalnum() and ch not in QUOTES and ch not in ' \r\n\x00' and ch.isprintable() or ch == '\t':
                counts[ch] += 1
    need = max(1, len(lines) // 3)
    found = [ch for ch, n in counts.most_common(12) if n >= need]
    return sorted(set(found) | set(USUAL_DELIMITERS), key=_preference)


def _preference(ch):
    i = USUAL_DELIMITERS.find(ch)
    return i if i >= 0 else len(USUAL_DELIMITERS) + ord(ch)


WHITESPACE = r'\s+'  # columns aligned with spaces: read_csv(sep=r'\s+') or read_fwf


def aligned(sample):
    """Whether the text is a table aligned with runs of spaces (popcon, ps,
    fixed-width reports): no usual delimiter on most lines, and at least
    two columns of blanks through nearly all lines with text either side."""
    lines = [l.rstrip('\r\n') for l in sample.splitlines()]
    lines = [l for l in lines if l.strip() and not l.lstrip().startswith('#')][:SNIFF_ROWS]
    if len(lines) < 3:
        return False
    for d in USUAL_DELIMITERS:
        if sum(1 for l in lines if d in l) * 2 > len(lines):
            return False
    widths = {len(l.split()) for l in lines}
    if len(widths) == 1 and widths.pop() > 1:
        return True  # 'a b c' / '1 22 333': one blank between fields, the same number on every line
    return len(blank_columns(lines)) >= 2


def blank_columns(lines):
    """Start positions of the runs of columns that are blank in at least
    19 of 20 lines (a line ending before counts as blank) and hold text
    further right."""
    width = max(len(l) for l in lines)
    filled = [0] * (width + 1)
    for l in lines:
        for i, ch in enumerate(l):
            if not ch.isspace():
                filled[i] += 1
    need = len(lines) / 20
    gaps, prev = [], False
    for i in range(width):
        gap = filled[i] <= need
        if gap and not prev and i > 0 and any(filled[j] > need for j in range(i + 1, width)):
            gaps.append(i)
        prev = gap
    return gaps


def column_spans(lines, header=None):
    """read_fwf's colspecs for aligned lines: [start, end) of each column,
    widened to hold the header's names when given."""
    width = max([len(l) for l in lines] + [len(header or '')])
    filled = [0] * width
    for l in lines:
        for i, ch in enumerate(l):
            if not ch.isspace():
                filled[i] += 1
    need = len(lines) / 20
    for i, ch in enumerate(header or ''):
        if not ch.isspace():
            filled[i] = len(lines)
    spans, start = [], None
    for i in range(width + 1):
        on = i < width and filled[i] > need
        if on and start is None:
            start = i
        elif not on and start is not None:
            spans.append([start, i])
            start = None
    # One blank between words is a column break only when the column after
    # it holds text on most lines: "(Debian Install System Team)" is one value.
    merged = []
    for sp in spans:
        if (
            merged
            and sp[0] - merged[-1][1] == 1
            and not header_starts(header, sp[0])
            and sum(1 for l in lines if l[sp[0] : sp[1]].strip()) * 2 < len(lines)
        ):
            merged[-1][1] = sp[1]
        else:
            merged.append(sp)
    spans = merged
    # Values longer than the sample's grow into the blanks beside them
    # (left for numbers, right for text): each column reaches the middle of
    # its gaps, the last one to the end of the line.
    for a, b in zip(spans, spans[1:]):
        a[1] = b[0] = (a[1] + b[0] + 1) // 2
    if spans:
        spans[0][0] = 0
        spans[-1][1] = max(spans[-1][1], width) + 4096
    return spans


def header_starts(header, i):
    """Whether a name of the header starts at column i."""
    return bool(header) and i < len(header) and not header[i].isspace() and (i == 0 or header[i - 1].isspace())


def sniff(text):
    """(delimiter, quote, skipinitialspace) for the text of a CSV file.
    Each delimiter is scored as it would be read, so a ', '-separated file
    with quoted fields is scored with skipinitialspace: read without it, its
    quotes stay inside cells and a character inside one column's values
    (the '-' of ISO dates) would look more consistent."""
    sample = sample_lines(text)
    if aligned(sample):
        return WHITESPACE, '"', False
    best, best_score = (',', '"', False), -1.0
    usual = []  # rows under each usual delimiter that splits lines in two or more
    for d in candidates(sample):
        spacings = (False, True) if _spaced(sample, d) else (False,)
        for q in QUOTES:
            if q == "'" and "'" not in sample:
                continue
            for spaced in spacings:
                rows = parse(sample, d, q, spaced, limit=SNIFF_ROWS)
                if rows is None:
                    continue
                score = consistency(rows)
                if q == "'":
                    score *= 0.99  # apostrophes are mostly just apostrophes
                if d in USUAL_DELIMITERS:
                    if score > 0 and collections.Counter(len(r) for r in rows if r).most_common(1)[0][0] > 1:
                        usual.append(rows)
                else:
                    score *= 0.9  # '.', '-', ':' and '/' also occur inside values
                    if any(inside_dates(d, r) for r in usual):
                        score *= 0.25  # the '-' of '2024-03-01' split by ',' into its own column
                if spaced:
                    score *= 0.999  # plain reading first when both read alike
                if score > best_score * 1.001:
                    best, best_score = (d, q, spaced), score
    d, q, spaced = best
    if not spaced and _spaced(sample, d):
        rows = parse(sample, d, q, True, limit=SNIFF_ROWS)
        if rows is not None and consistency(rows) >= best_score * 0.999:
            best = (d, q, True)
    return best


def inside_dates(d, rows):
    """Whether d occurs, in rows read with another delimiter, only inside
    cells that are dates or times: it is part of the values, not between them."""
    seen = False
    for r in rows:
        for c in r:
            if d in c:
                if kind(c) != 'd':
                    return False
                seen = True
    return seen


def _spaced(sample, delim):
    """Most delimiters followed by a space: 'a, b, c'."""
    n = sample.count(delim)
    return delim != ' ' and n > 0 and sample.count(delim + ' ') > n / 2
