# Revenue or cost, for each line of a variance() (sent with kernel.py). In
# order: the call's kind= (a column, a mapping line -> kind, or one kind for
# all), a kind column the data has, the section header the line stands
# under, the line's name, and last its account number where the file's
# other accounts with the same leading digit are all of one kind. Each
# inference is said in the notes; a line none of these settles is named
# there and left unclassified.
NOTE_NAMES = 12  # names quoted per note; the rest are counted


def name_kind(folded):
    """(kind, how) from a folded name: how is 'phrase' or 'word', or
    'ambiguous' (kind None) when it holds words of both kinds."""
    hits = []
    for k, rx in KIND_PHRASE_RES:
        m = rx.search(folded)
        if m:
            hits.append((m.start(), k))
    if hits:
        kinds = {k for _, k in hits}
        return (min(hits)[1], 'phrase') if len(kinds) > 1 else (hits[0][1], 'phrase')
    kinds = {k for k, rx in KIND_WORD_RES if rx.search(folded)}
    if len(kinds) == 1:
        return kinds.pop(), 'word'
    return None, ('ambiguous' if kinds else None)


def section_kind(name):
    """The kind a section header gives its lines ('Income', 'Less Cost of
    Sales', 'Aufwendungen'), or None."""
    t = SECTION_PREFIX.sub('', fold_text(name))
    if not t or SECTION_GROUP.match(t):
        return None
    if t in SECTION_NAMES:
        return SECTION_NAMES[t]
    return name_kind(t)[0]


def section_named(name):
    """Whether a name is a section header's by itself ('Expenses',
    'Ordinary Income/Expense'), with no total needed to say so."""
    t = SECTION_PREFIX.sub('', fold_text(name))
    return bool(t) and (t in SECTION_NAMES or bool(SECTION_GROUP.match(t)))


def short_name(s, n=60):
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + '\u2026'


def quoted(names, total=None):
    """'A', 'B' and 3 more."""
    names = list(names)
    total = len(names) if total is None else total
    shown = ', '.join(repr(short_name(x)) for x in names[:NOTE_NAMES])
    return shown + (' and %d more' % (total - NOTE_NAMES) if total > NOTE_NAMES else '')


class Kinds:
    """kind[i] ('revenue', 'cost' or None) and how[i] for each line of a
    merged table, with the notes that say how they were found."""

    def __init__(self, n):
        self.kind = [None] * n
        self.how = [None] * n
        self.notes = []


def decide_kinds(lines, kind, section_counts):
    """lines: the merged lines (each with .label, .name, .code, .given,
    .section, .section_kind, .column_kind); kind: the call's kind=."""
    n = len(lines)
    ks = Kinds(n)
    if isinstance(kind, str) and fold_text(kind) in KIND_VALUES:
        k = KIND_VALUES[fold_text(kind)]
        ks.kind = [k] * n
        ks.how = ['given'] * n
        ks.notes.append("every line is taken as %s (kind=%r)" % (k, kind))
        return ks
    mapping = _mapping(kind) if isinstance(kind, dict) else None
    if mapping is not None:
        used = set()
        for i, ln in enumerate(lines):
            for key in (ln.label, ln.code, ln.name):
                if key is not None and key in mapping['exact']:
                    ks.kind[i], ks.how[i] = mapping['exact'][key], 'given'
                    used.add(key)
                    break
                f = fold_text(key) if key is not None else ''
                if f and f in mapping['folded']:
                    ks.kind[i], ks.how[i] = mapping['folded'][f], 'given'
                    used.add(mapping['names'][f])
                    break
        unused = [k for k in mapping['exact'] if k not in used]
        if unused:
            ks.notes.append('kind= names %s, which no line has' % quoted(unused))
    from_col = []
    for i, ln in enumerate(lines):
        if ks.kind[i] is None and ln.column_kind:
            ks.kind[i], ks.how[i] = ln.column_kind, 'column'
            from_col.append(i)
    if from_col and not isinstance(kind, str):
        ks.notes.append('kinds from the column %r (%d lines)' % (lines[from_col[0]].kind_column, len(from_col)))
    by_section = {}
    for i, ln in enumerate(lines):
        if ks.kind[i] is None and ln.section_kind:
            ks.kind[i], ks.how[i] = ln.section_kind, 'section'
            key = (ln.section_source or ln.section, ln.section_kind)
            by_section[key] = by_section.get(key, 0) + 1
    if by_section:
        ks.notes.append(
            'kinds from the section headers: '
            + '; '.join(
                '%r → %s (%d line%s)' % (short_name(s), k, c, '' if c == 1 else 's') for (s, k), c in by_section.items()
            )
        )
    by_name = {'revenue': [], 'cost': []}
    unsure = []
    for i, ln in enumerate(lines):
        if ks.kind[i] is not None:
            continue
        k, how = name_kind(fold_text(ln.name or ''))
        if k:
            ks.kind[i], ks.how[i] = k, 'name'
            by_name[k].append(ln.label)
        elif how == 'ambiguous':
            unsure.append(i)
    for k in ('revenue', 'cost'):
        if by_name[k]:
            ks.notes.append(
                'taken as %s from %s: %s'
                % (k, 'its name' if len(by_name[k]) == 1 else 'their names', quoted(by_name[k]))
            )
    _by_account(lines, ks)
    left = [i for i in range(n) if ks.kind[i] is None]
    if left and any(ks.kind):
        ks.notes.append(
            'not classified as revenue or cost (%s): %s; pass kind={...} to say which they are'
            % (
                'their names hold words of both' if set(left) <= set(unsure) else 'nothing in the file says',
                quoted([lines[i].label for i in left]),
            )
        )
    elif left:
        ks.notes.append(
            "no line could be classified as revenue or cost, so better and worse cannot be told: pass "
            "kind='cost' (or 'revenue', a mapping line -> kind, or a column)"
        )
    return ks


def _mapping(kind):
    exact, folded, names = {}, {}, {}
    for key, v in kind.items():
        k = KIND_VALUES.get(fold_text(v))
        if k is None:
            raise ValueError("kind={%r: %r}: a kind is 'revenue' or 'cost'" % (key, v))
        exact[key] = k
        if isinstance(key, str):
            folded[fold_text(key)] = k
            names[fold_text(key)] = key
        else:
            exact[str(key)] = k
    return {'exact': exact, 'folded': folded, 'names': names}


def _by_account(lines, ks):
    """Kinds from the leading digit of account numbers, where every
    classified account with that digit is of one kind (the chart of
    accounts differs between countries, so the file itself must say)."""
    digits = {}
    for i, ln in enumerate(lines):
        if ks.kind[i] and ln.account and ln.account[:1].isdigit():
            digits.setdefault(ln.account[:1], set()).add(ks.kind[i])
    found = []
    for i, ln in enumerate(lines):
        if ks.kind[i] is None and ln.account and ln.account[:1].isdigit():
            seen = digits.get(ln.account[:1])
            if seen and len(seen) == 1:
                ks.kind[i], ks.how[i] = next(iter(seen)), 'account'
                found.append(i)
    if found:
        ks.notes.append(
            'taken from the account number, like the file\'s other accounts starting with %s: %s'
            % (
                ' or '.join(sorted({lines[i].account[:1] for i in found})),
                '; '.join(
                    '%s %s → %s' % (lines[i].account, repr(short_name(lines[i].name or '')), ks.kind[i])
                    for i in found[:NOTE_NAMES]
                ),
            )
            + (' and %d more' % (len(found) - NOTE_NAMES) if len(found) > NOTE_NAMES else '')
        )
