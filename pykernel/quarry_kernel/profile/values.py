# How the values in a CSV's columns are written (sent with profile/front.py as one
# program): the decimal mark and digit grouping, markers for missing values,
# dates in one text format, and codes whose leading zeros must stay.
import datetime
import re

# '1,5' and '1.234,56' are decimal commas; '1,234' could be either, so it
# votes for nothing on its own.
_DEC_COMMA = re.compile(r'^[+-]?(\d+,\d{1,2}|\d+,\d{4,}|\d{1,3}([. \u00a0\u202f]\d{3})+,\d+|,\d+)$')
_DEC_DOT = re.compile(r'^[+-]?(\d+\.\d{1,2}|\d+\.\d{4,}|\d{1,3}(,\d{3})+\.\d+|\.\d+)([eE][+-]?\d+)?$')
_GROUP_DOT = re.compile(r'^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$')
_GROUP_COMMA = re.compile(r'^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$')
# French and Swiss exports group digits with a (no-break) space: '1 234,56'.
_GROUP_SPACE = re.compile(r'^[+-]?\d{1,3}([ \u00a0\u202f])\d{3}(\1\d{3})*([.,]\d+)?$')
_PLAIN = re.compile(r'^[+-]?\d+$')
_CODE = re.compile(r'^0\d+$')
_NA_TOKEN = re.compile(r'^[^\w\s]{1,6}$|^(n\.?\s?[av]\.?|k\.?\s?a\.?|x)$', re.I)
# pandas already reads these as missing.
_PANDAS_NA = frozenset(
    (
        '',
        '#N/A',
        '#N/A N/A',
        '#NA',
        '-1.#IND',
        '-1.#QNAN',
        '-NaN',
        '-nan',
        '1.#IND',
        '1.#QNAN',
        '<NA>',
        'N/A',
        'NA',
        'NULL',
        'NaN',
        'None',
        'n/a',
        'nan',
        'null',
    )
)
# Text dates read_csv should parse, tried in order. The two slashed forms
# are ambiguous: a column that fits both gets no format rather than a guess.
_DATE_FORMATS = (
    '%Y-%m-%d',
    '%Y-%m-%d %H:%M:%S',
    '%Y-%m-%dT%H:%M:%S',
    '%Y-%m-%d %H:%M',
    '%d.%m.%Y',
    '%d.%m.%Y %H:%M',
    '%d.%m.%Y %H:%M:%S',
    '%d.%m.%y',
    '%Y/%m/%d',
    '%d/%m/%Y',
    '%m/%d/%Y',
    '%d-%m-%Y',
    '%Y%m%d',
)
_DATE_SHAPE = re.compile(r'^\d{1,4}[-./]?\d{1,2}[-./]?\d{1,4}([ T][\d:]{4,8})?$')


def number_format(columns):
    """(decimal, thousands) from the text of the table's cells (a list of
    columns, each a list of stripped strings). thousands is None unless the
    numbers group digits and none contradicts it (with thousands='.', a
    '3.5' would read as 35)."""
    comma = dot = 0
    group = {'.': 0, ',': 0}
    clash = {'.': 0, ',': 0}
    spaces = {}
    for col in columns:
        for c in col:
            if not c or not (c[0].isdigit() or c[0] in '+-.,'):
                continue
            if _DEC_COMMA.match(c):
                comma += 1
                clash[','] += 1
            elif _DEC_DOT.match(c):
                dot += 1
                clash['.'] += 1
            if _GROUP_DOT.match(c):
                group['.'] += 1
            if _GROUP_COMMA.match(c):
                group[','] += 1
            m = _GROUP_SPACE.match(c)
            if m:
                spaces[m.group(1)] = spaces.get(m.group(1), 0) + 1
    if comma > dot:
        decimal = ','
    elif dot > comma:
        decimal = '.'
    else:
        # Only grouped integers ("1.613"): the grouping mark is the one used.
        decimal = ',' if group['.'] > group[','] else '.'
    other = '.' if decimal == ',' else ','
    thousands = other if group[other] and not clash[other] else None
    if thousands is None and spaces:
        thousands = max(spaces, key=spaces.get)
    return decimal, thousands


def to_number(c, decimal, thousands):
    s = c.strip()
    if thousands:
        s = s.replace(thousands, '')
    if decimal == ',':
        s = s.replace(',', '.')
    try:
        float(s)
        return True
    except ValueError:
        return False


def missing_markers(columns, decimal, thousands):
    """Tokens such as '.', '-', '****' standing for missing values in
    otherwise numeric columns; pandas leaves the column as text otherwise."""
    found = set()
    for col in columns:
        vals = [c for c in col if c]
        if len(vals) < 3:
            continue
        if sum(1 for c in vals if _DATE_SHAPE.match(c)) * 2 > len(vals):
            continue  # '01.12.2023' reads as a number once the dots go
        odd = [c for c in vals if not to_number(c, decimal, thousands)]
        if not odd or len(odd) * 5 > len(vals):
            continue
        tokens = set(odd)
        if len(tokens) <= 3 and all(_NA_TOKEN.match(t) and t not in _PANDAS_NA for t in tokens):
            found |= tokens
    return sorted(found)


def date_formats(names, columns):
    """{column name: strftime format} for text columns that hold dates in
    one format; read_csv then parses them (and keeps thousands='.' off them)."""
    found = {}
    for name, col in zip(names, columns):
        vals = [c for c in col if c]
        if not vals or name in found or not all(_DATE_SHAPE.match(v) for v in vals):
            continue
        if all(_PLAIN.match(v) for v in vals) and not all(len(v) == 8 for v in vals):
            continue
        fits = [f for f in _DATE_FORMATS if all(_fits(v, f) for v in vals)]
        if '%d/%m/%Y' in fits and '%m/%d/%Y' in fits:
            continue
        if fits:
            found[name] = fits[0]
    return found


def _fits(v, fmt):
    try:
        datetime.datetime.strptime(v, fmt)
        return True
    except ValueError:
        return False


def code_columns(names, columns):
    """Columns of digit codes with leading zeros (postcodes, accounts,
    'Code 01'): read as text so '01' stays '01'."""
    out = []
    for name, col in zip(names, columns):
        vals = [c for c in col if c]
        if vals and all(c.isdigit() for c in vals) and sum(1 for c in vals if _CODE.match(c)) * 10 >= len(vals):
            out.append(name)
    return out
