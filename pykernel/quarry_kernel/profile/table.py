# Where the table is inside a CSV file or a sheet (sent with profile/front.py as one
# program): title and note lines above it, the header row, and footers,
# totals and source notes below it. The table body is the run of rows dense in
# values; rows around it belong to it only when nothing sets them apart.
import re
import statistics

# A totals row repeats what the rows above add up to; summing it with them
# doubles the answer.
_TOTALS = re.compile(
    r'^\W*(grand[ -]?total|sub-?totals?|totals?|summe|zwischensumme|gesamt\w*|endsumme|'
    r'somme|sous-total|totale|suma|sum|合計|总计|合计|總計|小計|小计|計|총계|합계|소계)'
    r'(\W*$|[\s:]+\w+\W*$|\s+\w+\s+\w+\W*$)',
    re.I,
)
# Words that start a note or a source line under (or over) a table.
_NOTE = re.compile(
    r'^\s*(\*|†|‡|\(?\d{1,2}\)|¹|²|³|※|注|出典|出所|来源|資料來源|资料来源|'
    r'notes?\b|source[sn]?\b|fuente|quelle|hinweis|anmerkung|stand\b|remarques?\b|'
    r'nota\b|footnote|legend|erl[äa]uterung|abk[üu]rzung)',
    re.I,
)
# The columns a header or totals row is judged by: the time stays bounded
# for a table of any width.
JUDGED_COLUMNS = 200
_YEAR = re.compile(r'^(1[89]|2[01])\d\d(\.0)?$')


def nonempty(row):
    return sum(map(bool, map(str.strip, row)))


def pandas_blank(row):
    """A line pandas skips as blank (it keeps ',,,' as a row of NaN)."""
    return not row or (len(row) == 1 and not row[0].strip())


class Table:
    """The table inside rows: rows[start] is the header (when header) or
    the first data row; rows[start:end] the table; footer rows follow."""

    def __init__(self, start, header, end, width, comments=(), notes=(), totals=None):
        self.start, self.header, self.end, self.width = start, header, end, width
        self.comments = list(comments)  # record indices of comment lines inside the table
        self.hashed = []  # record indices of every comment line, above the table too
        self.notes = list(notes)
        self.totals = totals  # index of a totals row kept as data, or None

    def body(self):
        return range(self.start + (1 if self.header else 0), self.end)


def find_table(rows, kind_of, partial=False, grid=False):
    """The table in rows (lists of cell text); kind_of(i, j) is the kind
    ('e','n','d','t') of cell j of row i. partial: rows are the start of a
    longer file, so the end of the rows is not the end of the table. grid:
    the rows are a sheet's, all as wide as the sheet, so a row's width says
    nothing and a title block is told by the blank row under it."""
    n = len(rows)
    ne = [nonempty(r) for r in rows]
    hashed = comment_rows(rows, ne)
    for i in hashed:
        ne[i] = 0  # a comment holding the delimiter is neither a header nor a row
    multi = [i for i in range(n) if ne[i] >= 2]
    if not multi:
        cells = [i for i in range(n) if ne[i]]
        if not cells:
            return Table(0, False, 0, 0)
        start = cells[0]
        end = n if partial else cells[-1] + 1
        return Table(start, _is_header(rows, kind_of, start, end, 1), end, 1)
    width = _mode(len(rows[i]) for i in multi)
    usual = [ne[i] for i in multi if len(rows[i]) == width] or [ne[i] for i in multi]
    dense_min = max(2, statistics.median(usual) / 2)
    dense = [ne[i] >= dense_min for i in range(n)]
    start = _start(rows, dense, ne, width, grid)
    last = max(i for i in range(n) if dense[i])
    end, notes = _end(rows, kind_of, ne, last, width, partial)
    header = _is_header(rows, kind_of, start, end, width)
    if (
        not header
        and start - 1 in hashed
        and width <= 2 * len(rows[start - 1]) <= 4 * width
        and nonempty(rows[start - 1]) > 1
    ):
        # '#id,name,...': a header written as a comment (VCF's #CHROM).
        hashed.discard(start - 1)
        start, header = start - 1, True
    body0 = start + (1 if header else 0)
    comments = [i for i in range(body0, end) if i in hashed]
    totals = None
    if end > body0 and not partial:
        end, totals, tnotes = _totals(rows, kind_of, body0, end)
        notes += tnotes
    t = Table(start, header, end, width, comments, notes, totals)
    t.hashed = sorted(hashed)
    return t


def comment_rows(rows, ne):
    """Rows that are '#' comments: a lone '#' cell, or any row starting with
    '#' when such rows are few (a first column of '#12' codes is data)."""
    hashed = [i for i in range(len(rows)) if rows[i] and rows[i][0].lstrip().startswith('#')]
    if len(hashed) * 2 < sum(1 for x in ne if x):
        return set(hashed)
    return {i for i in hashed if ne[i] <= 1}


def _mode(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=lambda v: (counts[v], v))


def _start(rows, dense, ne, width, grid=False):
    """The first dense row as wide as the table that holds about as many
    values as the rows after it (a title with two cells is not a header).
    In a sheet, rows set apart from the table by a blank row below them
    ("Period: 2024-03", "Account DE12 3456 Currency EUR") are a title block."""
    n = len(rows)
    for i in range(n):
        if not dense[i] or len(rows[i]) < width:
            continue
        if grid and _title_block(dense, ne, i):
            continue
        nxt = [j for j in range(i + 1, n) if ne[j]][:10]
        if not nxt:
            return i
        if grid and not _covers(rows, i, nxt):
            continue
        if sum(dense[j] for j in nxt) * 2 >= len(nxt) and ne[i] * 2 >= statistics.median(ne[j] for j in nxt):
            return i
    return next(i for i in range(n) if dense[i])


def _covers(rows, i, nxt):
    """Whether row i of a sheet has a value over every column the rows
    after it mostly fill, but one (a header leaves the row labels' blank; a
    title's "Period: 2024-03" covers two columns of a table of four)."""
    used = [
        j for j in range(len(rows[i])) if sum(1 for k in nxt if j < len(rows[k]) and rows[k][j].strip()) * 2 > len(nxt)
    ]
    return sum(1 for j in used if not rows[i][j].strip()) <= 1


def _title_block(dense, ne, i):
    """Whether rows i.. are a block of at most three rows ended by a blank
    row with a longer run of dense rows after it."""
    for j in range(i + 1, min(i + 4, len(ne))):
        if not ne[j]:
            after = 0
            for k in range(j + 1, len(ne)):
                if not ne[k]:
                    if after:
                        break
                    continue
                if not dense[k]:
                    break
                after += 1
            return after > j - i
    return False


def _end(rows, kind_of, ne, last, width, partial):
    """The end of the table after its last dense row: sparse rows still
    belong to it unless a blank line, a note, a totals line or a much
    narrower line sets them apart."""
    n = len(rows)
    end = last + 1
    gap = False
    for i in range(last + 1, n):
        if not ne[i]:
            gap = True
            continue
        first = next(c for c in rows[i] if c.strip())
        if gap or _NOTE.match(first) or any(_TOTALS.match(c) for c in rows[i] if c.strip()) or len(rows[i]) * 2 < width:
            break
        end = i + 1
    else:
        if partial:
            end = n
        return end, []
    footer = sum(1 for r in rows[end:] if nonempty(r))
    return end, [
        '%d line%s below the table (notes, a source or totals) %s left out'
        % (footer, '' if footer == 1 else 's', 'is' if footer == 1 else 'are')
    ]


def _totals(rows, kind_of, body0, end):
    """A totals row at the end of the body: left out when it breaks a
    column's type (text in a date or number column), otherwise kept and
    pointed out."""
    i = end - 1
    while i > body0 and not nonempty(rows[i]):
        i -= 1
    row = rows[i][:JUDGED_COLUMNS]
    label = next((j for j, c in enumerate(row) if _TOTALS.match(c.strip())), None)
    if label is None:
        return end, None, []
    cut = i
    while cut > body0 and not nonempty(rows[cut - 1]):
        cut -= 1
    if cut < i:
        # Set apart by a blank line: a summary under the table.
        return cut, None, ['the line under the table holds totals and is left out']
    above = range(max(body0, i - 200), i)
    for j, c in enumerate(row):
        if not c.strip() or kind_of(i, j) in ('n', 'd'):
            continue
        col = [kind_of(k, j) for k in above if j < len(rows[k])]
        filled = [k for k in col if k != 'e']
        if filled and sum(k in ('n', 'd') for k in filled) * 2 > len(filled):
            return i, None, ['the line at the end of the table holds totals and is left out']
    return end, i, ['the last row holds totals (its label says so): leave it out before adding up a column']


def _is_header(rows, kind_of, start, end, width):
    """Whether rows[start] names the columns: it is text where the rows
    below hold numbers or dates, or, in an all-text table, its names are
    distinct and do not recur below."""
    if start + 1 >= end:
        return any(kind_of(start, j) == 't' for j in range(len(rows[start])))
    row = rows[start][:JUDGED_COLUMNS]
    below = [k for k in range(start + 1, end) if nonempty(rows[k])][:50]
    # Years over columns of years are data ('Bach,1685,1750'), not labels.
    labels = {
        j
        for j in _year_labels(row)
        if sum(1 for k in below if j < len(rows[k]) and _YEAR.match(rows[k][j].strip())) * 2 <= len(below)
    }
    votes = 0
    for j, h in enumerate(row):
        if not h.strip():
            continue
        kinds = [kind_of(k, j) for k in below if j < len(rows[k])]
        kinds = [k for k in kinds if k != 'e']
        if not kinds:
            continue
        typed = sum(k in ('n', 'd') for k in kinds) * 2 > len(kinds)
        if typed:
            hk = 't' if j in labels else kind_of(start, j)
            votes += -1 if hk in ('n', 'd') else 1
        elif kind_of(start, j) in ('n', 'd'):
            votes -= 1
    if votes:
        return votes > 0
    names = [h.strip() for h in row if h.strip()]
    if not names or len(set(names)) < len(names) or len(names) * 2 < len(row):
        return False
    for j, h in enumerate(row):
        h = h.strip()
        if h and any(j < len(rows[k]) and rows[k][j].strip() == h for k in below):
            return False
    return True


def _year_labels(row):
    """Columns whose header is a year in a run of years (2000, 2001, ...):
    labels, though they read as numbers. Two years count beside a text
    name ('Region, 2023, 2024')."""
    ys = [(j, float(c)) for j, c in enumerate(row) if _YEAR.match(c.strip())]
    named = any(c.strip() and not _YEAR.match(c.strip()) and kind(c) == 't' for c in row)
    if len(ys) < 2 or len(ys) == 2 and not named:
        return set()
    vals = [v for _, v in ys]
    if all(a < b for a, b in zip(vals, vals[1:])) or all(a > b for a, b in zip(vals, vals[1:])):
        return {j for j, _ in ys}
    return set()
