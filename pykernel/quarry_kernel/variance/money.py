# Amounts as reports write them, for variance() (sent with kernel.py):
# '1,156,579.46', '(1,234.00)', '-1.234,56', '1.234,56-' (SAP), '€ 1.234',
# '$1,234.56', '1 234,56', "1'234.50", '107.23 %', '-' for nothing. The
# decimal mark and digit grouping are the file profile's (number_format in
# profile/values.py), judged once over all of a file's amount cells.
import re

_CURRENCY = re.compile(
    r'R\$|US\$|A\$|C\$|[€$£¥₹₽₩₺₪]|\b(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|CZK|HUF|BRL|'
    r'MXN|ZAR|INR|CNY|RMB|SFr|Fr|kr|zł|Kč|Ft|TL)\b\.?',
    re.I,
)
_CURRENCY_SIGN = re.compile(r'R\$|US\$|[€$£¥₹₽₩₺₪]|\b(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|BRL)\b')
_MONEY_SPACES = re.compile(r'[\s\u00a0\u202f\u2009]+')
_DASHES = frozenset(('-', '–', '—', '--', '−'))
MONEY_SAMPLE = 300  # cells per column the number format is judged from


def money_text(series):
    """The cells of an object column as text with currency, percent signs,
    brackets and trailing minus taken off: (text, negative, percent) Series."""
    s = series.astype(str).str.strip()
    s = s.str.replace('\u2212', '-', regex=False)
    percent = s.str.endswith('%')
    s = s.str.rstrip('%')
    s = s.str.replace(_CURRENCY, '', regex=True)
    s = s.str.replace(_MONEY_SPACES, ' ', regex=True).str.strip()
    bracket = s.str.startswith('(') & s.str.endswith(')')
    s = s.where(~bracket, s.str[1:-1].str.strip())
    trailing = s.str.endswith('-') & (s.str.len() > 1)
    s = s.where(~trailing, s.str[:-1].str.strip())
    lead = s.str.startswith('-') | s.str.startswith('+')
    sign = s.str[:1].where(lead, '')
    s = s.where(~lead, s.str[1:].str.strip())
    return s, (bracket | trailing) ^ (sign == '-'), percent


def number_format_of(columns):
    """(decimal, thousands) for a file from its amount columns' cells."""
    import pandas as pd  # noqa: F401  (kept: waits here for the imports' thread's pandas)

    sample = []
    for col in columns:
        if col.dtype != object:
            continue
        head = col.head(MONEY_SAMPLE * 4)
        vals = head[head.map(lambda v: isinstance(v, str))].head(MONEY_SAMPLE)
        if len(vals):
            text, _, _ = money_text(vals)
            sample.append([t for t in text if t and t not in _DASHES])
    if not sample:
        return '.', None
    decimal, thousands = profile_mod.number_format(sample)
    if thousands is None and decimal == '.' and any("'" in c for col in sample for c in col):
        thousands = "'"
    return decimal, thousands


def money_values(series, decimal='.', thousands=None):
    """A column of amounts as floats: NaN where a cell is blank or not a
    number, 0 where it is a dash. Numbers pass through as they are."""
    import numpy as np
    import pandas as pd

    if series.dtype.kind in 'biuf':
        v = series.astype('float64')
        return v.where(np.isfinite(v))
    if series.dtype.kind == 'm' or series.dtype.kind == 'M':
        return pd.Series(np.nan, index=series.index)
    if pd.api.types.infer_dtype(series, skipna=False) == 'string':
        is_text = pd.Series(True, index=series.index)
    else:
        is_text = series.map(lambda v: isinstance(v, str))
    numeric = pd.to_numeric(series.where(~is_text), errors='coerce').astype('float64')
    if not is_text.any():
        return numeric
    cells = series[is_text]
    if decimal == '.':
        # Most cells of most files are plain numbers: only the rest go
        # through the money parsing.
        plain = pd.to_numeric(cells, errors='coerce')
        numeric[is_text] = plain.astype('float64')
        odd = plain.isna() & (cells.str.strip() != '')
        if not odd.any():
            return numeric.where(np.isfinite(numeric))
        is_text = is_text & odd.reindex(series.index, fill_value=False)
        cells = series[is_text]
        if len(cells) > 400 and _parsed(cells.head(200), decimal, thousands).notna().mean() < 0.3:
            return numeric.where(np.isfinite(numeric))  # words with digits ('Account 00017'), not amounts
    numeric[is_text] = _parsed(cells, decimal, thousands).astype('float64')
    return numeric.where(np.isfinite(numeric))


def _parsed(cells, decimal, thousands):
    """Text cells as amounts, NaN where one is not."""
    import pandas as pd

    text, negative, _ = money_text(cells)
    dash = cells.str.strip().isin(_DASHES)
    t = text
    if thousands:
        t = t.str.replace(thousands, '', regex=False)
    if thousands != ' ':
        t = t.str.replace(' ', '', regex=False)
    if decimal == ',':
        t = t.str.replace(',', '.', regex=False)
    v = pd.to_numeric(t.where(t != ''), errors='coerce')
    v = v.where(~negative, -v)
    return v.where(~dash, 0.0)


def currency_of(columns):
    """The currency sign a file's amounts carry, when they carry one."""
    for col in columns:
        if col.dtype != object:
            continue
        for v in col.head(200):
            if isinstance(v, str):
                m = _CURRENCY_SIGN.search(v)
                if m:
                    return m.group(0)
    return None
