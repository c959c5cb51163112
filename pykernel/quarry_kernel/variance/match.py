# Lines of the actuals matched to the budget's for variance() (sent with
# kernel.py): by account code first where both files have codes, then by
# name (folded: case, accents, punctuation and an embedded code aside, within
# the same section kind). A line repeated in one file is summed; a line in
# one file only is kept with nothing on the other side. The result is in the
# actuals' order, each budget-only line after the line it follows there.


class Merged:
    """One line of the result: its labels and attributes (from the actuals
    where it is there), and the lines of each file it sums."""

    def __init__(self, ln):
        self.labels, self.name, self.code, self.label = ln.labels, ln.name, ln.code, ln.label
        self.account = ln.account
        self.section, self.section_kind, self.section_source = ln.section, ln.section_kind, ln.section_source
        self.column_kind, self.kind_column = ln.column_kind, ln.kind_column
        self.a, self.b = [], []

    def take(self, ln):
        """Fills in what the first file did not say."""
        for attr in ('section', 'section_kind', 'section_source', 'column_kind', 'kind_column', 'code', 'account'):
            if getattr(self, attr) is None:
                setattr(self, attr, getattr(ln, attr))


def one_file_lines(lines):
    out = []
    for i, ln in enumerate(lines):
        m = Merged(ln)
        m.a, m.b = [i], [i]
        out.append(m)
    _disambiguate(out)
    return out, []


def _disambiguate(merged):
    """Two lines of one label (an 'Other' under Income and under Expenses)
    are told apart by their section."""
    seen = {}
    for m in merged:
        seen.setdefault(m.labels, []).append(m)
    for same in seen.values():
        if len(same) > 1:
            for m in same:
                if m.section:
                    m.labels = m.labels[:-1] + ('%s (%s)' % (m.labels[-1], m.section),)
                    m.label = m.labels[-1]


def _name_key(ln):
    return (line_key(ln.name or ln.label), ln.section_kind or '')


def _groups(lines, use_codes, side, notes):
    """key -> [line indices] in first-seen order, duplicates summed and noted."""
    groups = {}
    for i, ln in enumerate(lines):
        key = ('c', ln.code) if use_codes and ln.code else ('n',) + _name_key(ln)
        groups.setdefault(key, []).append(i)
    dup = [(lines[v[0]].label, len(v)) for v in groups.values() if len(v) > 1]
    if dup:
        notes.append(
            'repeated in the %s and summed: %s'
            % (
                side,
                ', '.join('%r (%d times)' % (short_name(l), n) for l, n in dup[:NOTE_NAMES])
                + (' and %d more' % (len(dup) - NOTE_NAMES) if len(dup) > NOTE_NAMES else ''),
            )
        )
    return groups


def match_lines(la, lb):
    notes = []

    def coded(lines):
        return lines and sum(1 for ln in lines if ln.code) * 2 >= len(lines)

    use_codes = bool(coded(la) and coded(lb))
    ga = _groups(la, use_codes, 'actuals', notes)
    gb = _groups(lb, use_codes, 'budget', notes)
    merged, by_key = [], {}
    for key, idx in ga.items():
        m = Merged(la[idx[0]])
        m.a = idx
        merged.append(m)
        by_key[key] = m
    by_name = {}
    for m in merged:
        by_name.setdefault(_name_key(la[m.a[0]]), []).append(m)
    found = {}
    for key, idx in gb.items():  # codes first, then names among the rest
        if key in by_key and not by_key[key].b:
            found[key] = by_key[key]
            by_key[key].b = idx
    for key, idx in gb.items():
        if key in found:
            continue
        for m in by_name.get(_name_key(lb[idx[0]]), ()):
            if not m.b:
                found[key] = m
                m.b = idx
                break
    renamed, after, pending = [], {}, []
    prev = None
    for key, idx in gb.items():
        bl = lb[idx[0]]
        m = found.get(key)
        if m is not None:
            m.take(bl)
            if key[0] == 'c' and _name_key(la[m.a[0]])[0] != _name_key(bl)[0]:
                renamed.append((m.code, la[m.a[0]].label, bl.label))
            prev = m
            continue
        nm = Merged(bl)
        nm.b = idx
        after.setdefault(id(prev), []).append(nm)
        pending.append(nm)
    if renamed:
        notes.append(
            'matched by account code where the names differ: %s'
            % '; '.join(
                '%s %r (actuals) = %r (budget)' % (c, short_name(a, 40), short_name(b, 40))
                for c, a, b in renamed[:NOTE_NAMES]
            )
            + (' and %d more' % (len(renamed) - NOTE_NAMES) if len(renamed) > NOTE_NAMES else '')
        )
    out = list(after.get(id(None), []))
    for m in merged:
        out.append(m)
        out.extend(after.get(id(m), []))
    only_a = [m.label for m in merged if not m.b]
    if only_a:
        notes.append('in the actuals only (budget 0): %s' % quoted(only_a))
    if pending:
        notes.append('in the budget only (actual 0): %s' % quoted([m.label for m in pending]))
    _disambiguate(out)
    return out, notes
