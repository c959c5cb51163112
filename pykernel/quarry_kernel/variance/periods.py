# Periods for variance() (sent with kernel.py): column headers and values
# read as months, quarters, years or fiscal periods ('Jan', '2026-01',
# 'Q1 2026', 'Jan-26', 'January 2026', 'März 2026', 'P03/2026'), and the
# periods a call sums: one, a range, or 'ytd'/'qtd'/'mtd' up to the last
# period the actuals have. A period is a key (freq, year, number): freq 'M'
# month, 'Q' quarter, 'Y' year, 'P' fiscal period; year None when the label
# has none.
import datetime
import re
import unicodedata

_MONTHS = {}
for _i, _names in enumerate(
    (
        'january jan januar janner janvier janv enero ene gennaio gen januari janeiro',
        'february feb februar fevrier fevr fev febrero febbraio februari fevereiro',
        'march mar marz mrz mars marzo maart mrt marco',
        'april apr avril avr abril abr aprile',
        'may mai mayo maggio mag mei maio',
        'june jun juni juin junio giugno giu junho',
        'july jul juli juillet juil julio luglio lug julho',
        'august aug aout agosto ago augustus',
        'september sep sept septembre septiembre setiembre set settembre setembro',
        'october oct oktober okt octobre octubre ottobre ott outubro out',
        'november nov novembre noviembre novembro',
        'december dec dezember dez decembre diciembre dic dicembre dezembro',
    ),
    1,
):
    for _n in _names.split():
        _MONTHS[_n] = _i

_MONTH = '(?P<mon>%s)' % '|'.join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?P<year>(?:19|20)\d{2}|'?\d{2})"  # 19xx or 20xx: '1037.8' is an amount, not August 1037
_SEP = r'[\s\-/.,_]*'
_PERIOD_FORMS = (
    ('M', re.compile(r'^%s\.?(?:%s%s)?$' % (_MONTH, _SEP, _YEAR))),
    ('M', re.compile(r'^%s%s%s\.?$' % (r'(?P<year>(?:19|20)\d{2})', _SEP, _MONTH))),
    ('M', re.compile(r'^(?P<year>(?:19|20)\d{2})[\s\-/.]?m?(?P<n>0?[1-9]|1[0-2])$')),
    ('M', re.compile(r'^(?P<n>0?[1-9]|1[0-2])[\-/.](?P<year>(?:19|20)\d{2})$')),
    ('M', re.compile(r'^(?P<year>(?:19|20)\d{2})-(?P<n>[01]\d)-\d{2}(?:[ t][\d:.]+)?$')),
    ('M', re.compile(r'^\d{1,2}\.(?P<n>[01]?\d)\.(?P<year>(?:19|20)\d{2})$')),
    (
        'Q',
        re.compile(
            r'^(?:q|t|qtr|quarter|quartal|trimestre|kwartaal) ?(?P<n>[1-4])%s(?:fy|gj)?%s(?P<year>\d{4}|\d{2})?$'
            % (_SEP, _SEP)
        ),
    ),
    ('Q', re.compile(r'^(?P<year>(?:19|20)\d{2})%s(?:q|t) ?(?P<n>[1-4])$' % _SEP)),
    (
        'Q',
        re.compile(
            r'^(?P<n>[1-4])(?:\.? ?(?:q|t|qtr|quarter|quartal|trimestre|kwartaal))%s(?P<year>\d{4}|\d{2})?$' % _SEP
        ),
    ),
    (
        'P',
        re.compile(r'^(?:p|per|period|periode|periodo|fp) ?0*(?P<n>[1-9]\d?)(?:%s(?P<year>(?:19|20)\d{2}))?$' % _SEP),
    ),
    ('P', re.compile(r'^0*(?P<n>[1-9]\d?)%s(?P<year>(?:19|20)\d{2})$' % r'[\s/]+')),
    ('Y', re.compile(r'^(?:fy|gj|ej|fiscal year|year|jahr|ano|anno|annee|jaar) ?(?P<year>\d{4}|\d{2})$')),
)
_PERIOD_SPACES = re.compile(r'\s+')


def fold_period(text):
    """A period's text in lower case without accents, spaces collapsed,
    punctuation kept ('Mär. 2026' -> 'mar. 2026')."""
    s = unicodedata.normalize('NFKD', str(text).casefold())
    s = ''.join(c for c in s if not unicodedata.combining(c))
    return _PERIOD_SPACES.sub(' ', s.replace(' of ', ' ')).strip(' .,')


_BARE_YEAR = re.compile(r'^(?P<year>(?:19|20)\d{2})$')
_RANGE = re.compile(r'^(?P<a>.+?) ?(?:-|–|—| to | bis | au | a | al | tot | ate )+ ?(?P<b>.+)$')
TOTAL_HEADERS = re.compile(
    r'^(?:total|totals|ytd|year to date|ytd total|summe|gesamt|kumuliert|kum|cumul|cumule|'
    r'acumulado|progressivo|cumulatief|acumulado|total year|full year|fy total|annual|jahr)$'
)


def period_of(text, years_ok=False):
    """The period key a header or value names, or None. years_ok: a bare
    four-digit year ('2026') counts, as it does among other years."""
    if isinstance(text, (datetime.date, datetime.datetime)):
        return ('M', text.year, text.month)
    if hasattr(text, 'to_timestamp') and hasattr(text, 'freqstr'):  # a pandas Period
        f = text.freqstr[:1]
        if f in 'QY':
            return (f, text.year, text.quarter if f == 'Q' else 0)
        return ('M', text.year, text.month)
    s = fold_period(text)
    if not s:
        return None
    for freq, form in _PERIOD_FORMS:
        m = form.match(s)
        if m:
            return _key(freq, m.groupdict())
    m = _BARE_YEAR.match(s)
    if m and years_ok:
        return ('Y', int(m.group('year')), 0)
    return None


def _key(freq, g):
    y = g.get('year')
    year = None
    if y:
        y = y.lstrip("'")
        year = int(y) if len(y) == 4 else 2000 + int(y)
    if freq == 'Y':
        return ('Y', year, 0)
    n = _MONTHS[g['mon']] if g.get('mon') else int(g['n'])
    return (freq, year, n)


def period_range(text):
    """(first, last) keys of a header naming a span ('Jan - Jun 2026',
    'January to March 2026'), the year of the end given to the start."""
    m = _RANGE.match(fold_period(text)) if text is not None else None
    if not m:
        return None
    b = period_of(m.group('b'))
    a = period_of(m.group('a'))
    if b is None:
        return None
    if a is None or a[0] != b[0]:
        return None
    if a[1] is None and b[1] is not None:
        a = (a[0], b[1] - (1 if a[2] > b[2] else 0), a[2])
    return a, b


def period_label(key):
    freq, year, n = key
    if freq == 'M':
        name = datetime.date(2000, n, 1).strftime('%b')
        return name if year is None else '%s %d' % (name, year)
    if freq == 'Q':
        return 'Q%d' % n if year is None else 'Q%d %d' % (n, year)
    if freq == 'Y':
        return str(year)
    return 'P%02d' % n if year is None else 'P%02d %d' % (n, year)


def _ordinal(key, position):
    freq, year, n = key
    if year is None:
        return position
    per_year = {'M': 12, 'Q': 4, 'Y': 1, 'P': 100}[freq]
    return year * per_year + n


def without_years(keys):
    """Keys with the year dropped when every key is of one year (to match
    a side whose headers name months only)."""
    years = {k[1] for k in keys}
    if len(years) == 1:
        return {k: (k[0], None, k[2]) for k in keys}
    return {k: k for k in keys}


class PeriodChoice:
    """The periods a call sums (keys, in order) and its words for the notes."""

    def __init__(self, keys, words):
        self.keys, self.words = keys, words


def choose_periods(keys, had, period):
    """keys: the actuals' periods in column order; had: those holding
    amounts. period: None (every period up to the last the actuals have),
    a label, 'ytd', 'qtd', 'mtd', a (first, last) pair or a list."""
    freqs = {k[0] for k in keys}
    if len(freqs) > 1:
        raise ValueError(
            'the periods mix %s: keep one kind of period (months, quarters or years) before calling '
            'variance()'
            % ' and '.join(
                sorted({'M': 'months', 'Q': 'quarters', 'Y': 'years', 'P': 'fiscal periods'}[f] for f in freqs)
            )
        )
    order = {k: _ordinal(k, i) for i, k in enumerate(keys)}
    if all(k[1] is None for k in keys) and not _in_sequence(keys):
        order = {k: k[2] for k in keys}  # 'Feb', 'Jan' as a pivot sorts them: the calendar's order
    keys = sorted(keys, key=order.get)
    had = [k for k in keys if k in had]
    if not had:
        raise ValueError('the actuals hold no amounts in any period (%s)' % _span_words(keys))
    last = had[-1]
    upto = keys[: keys.index(last) + 1]
    freq = last[0]
    if period is None:
        chosen = upto
        why = 'every period the actuals have'
    elif isinstance(period, str) and fold_text(period) in ('ytd', 'qtd', 'mtd'):
        what = fold_text(period)
        start = _year_start(keys, upto, order)
        if what == 'ytd':
            chosen = upto[upto.index(start) :]
            why = 'year to date'
            if freq == 'M' and start[2] != 1:
                why += ' (the year taken to start in %s, the first month the file has)' % datetime.date(
                    2000, start[2], 1
                ).strftime('%B')
        elif what == 'qtd':
            if freq not in ('M', 'P'):
                raise ValueError("period='qtd' needs months; the periods are %s" % _freq_words(freq))
            run = upto[upto.index(start) :]
            chosen = run[(len(run) - 1) // 3 * 3 :]
            why = 'quarter to date'
        else:
            if freq not in ('M', 'P'):
                raise ValueError("period='mtd' needs months; the periods are %s" % _freq_words(freq))
            chosen = [last]
            why = 'the last month the actuals have'
    elif isinstance(period, (tuple, list)) and len(period) == 2 and not isinstance(period, list):
        a, b = (_find(keys, p) for p in period)
        ia, ib = keys.index(a[0]), keys.index(b[-1])
        if ia > ib:
            raise ValueError('period=(%r, %r): the first comes after the last' % tuple(period))
        chosen = keys[ia : ib + 1]
        why = 'the periods asked for'
    elif isinstance(period, (list, tuple)):
        chosen = []
        for p in period:
            chosen += [k for k in _find(keys, p) if k not in chosen]
        chosen.sort(key=order.get)
        why = 'the periods asked for'
    else:
        chosen = _find(keys, period)
        why = 'the period asked for'
    return PeriodChoice(chosen, why)


def _in_sequence(keys):
    """Whether periods without years follow each other in column order
    (a fiscal year from April: Apr, May, ..., Mar)."""
    per_year = {'M': 12, 'Q': 4}.get(keys[0][0])
    if not per_year:
        return True
    return all(b[2] == a[2] % per_year + 1 for a, b in zip(keys, keys[1:]))


def _year_start(keys, upto, order):
    """The first period of the (fiscal) year holding the last: the year is
    taken to start where the file's first period falls in its year."""
    last = upto[-1]
    if last[0] == 'Y':
        return last
    first = keys[0]
    if last[1] is None or first[1] is None:
        return first
    for k in reversed(upto):
        if k[2] == first[2]:
            return k
    return upto[0]


def _find(keys, p):
    """The keys a period= value names: a period the file has, or a year or
    quarter holding months it has; a month named without its year is the
    latest of that name."""
    if isinstance(p, tuple) and len(p) == 3 and p[0] in ('M', 'Q', 'Y', 'P'):
        want = p  # a key already (the span an actuals column names)
    else:
        want = period_of(p, years_ok=True) if not isinstance(p, (tuple, list)) else None
    if want is None:
        raise ValueError(
            'period=%r is not a period: write it as the file does (e.g. %r), or "ytd", "qtd", "mtd"'
            % (p, period_label(keys[-1]))
        )
    found = [k for k in keys if k == want]
    if not found and want[1] is None:
        found = [k for k in keys if k[0] == want[0] and k[2] == want[2]]
        found = [k for k in found if k[1] == max(found, key=lambda k: k[1] or 0)[1]]
    if not found and want[0] in ('Q', 'Y'):
        found = [
            k
            for k in keys
            if k[0] == 'M'
            and (want[1] is None or k[1] == want[1])
            and (want[0] == 'Y' or (k[2] - 1) // 3 + 1 == want[2])
        ]
    if not found:
        raise ValueError('period=%r: the actuals have no such period; they have %s' % (p, _span_words(keys)))
    return found


def _freq_words(freq):
    return {'M': 'months', 'Q': 'quarters', 'Y': 'years', 'P': 'fiscal periods'}[freq]


def _span_words(labels_or_keys):
    items = [period_label(k) if isinstance(k, tuple) else str(k) for k in labels_or_keys]
    if len(items) <= 3:
        return ', '.join(items) or 'none'
    return '%s – %s (%d)' % (items[0], items[-1], len(items))
