"""The rooms of quarry_kernel and whose names each may use.

The parts of a program share one namespace (parts.txt), so a room depends
on another by using its names, not by importing it. Each subpackage's
docstring names, on its ``May use:`` line, the rooms whose names it may
use; this test holds every part to its room's line, as architecture_test.go
holds the Go packages to docs/architecture.md's table. A name no part
defines, that is not a builtin or set by the host, is a typo (ruff's F821,
which cannot see across parts, is off for this).
"""

import builtins
import pathlib
import re
import symtable

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / 'quarry_kernel'
ROOMS = sorted(p.name for p in PACKAGE.iterdir() if (p / '__init__.py').exists())
BUILTINS = set(dir(builtins)) | {'__file__', '__name__', '__builtins__'}
# Set by the host before the kernel's parts run: the protocol's fds, the
# profiler's source, the imports settings (sandbox/kernel_conn.go,
# kernel_imports.go).
HOST_NAMES = {
    'QIN',
    'QOUT',
    'PROFILE_SRC',
    'IMPORTS_MODE',
    'EAGER_IMPORTS',
    'IMPORTS_DELAY',
    'IMPORTS_BROKEN',
    'IMPORTS_SLOW',
}


def programs() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ''
    for line in (ROOT / 'parts.txt').read_text().splitlines():
        line = line.strip()
        if line.startswith('['):
            current = line.strip('[]')
            out[current] = []
        elif line and not line.startswith('#'):
            out[current].append(line)
    return out


def may_use(room: str) -> set[str]:
    """The rooms the room's docstring allows, from its 'May use:' line."""
    doc = (PACKAGE / room / '__init__.py').read_text()
    m = re.search(r'^May use: (.+)$', doc, re.M)
    assert m, 'quarry_kernel/%s/__init__.py has no "May use:" line' % room
    if m.group(1).strip() == 'nothing':
        return set()
    return {r.strip() for r in m.group(1).split(',')}


def bindings(src: str, name: str) -> tuple[set[str], set[str], set[str]]:
    """The part's top-level names (defined, imported) and the global names it uses."""
    top = symtable.symtable(src, name, 'exec')
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_namespace()}
    imported = {s.get_name() for s in top.get_symbols() if s.is_imported()}
    used = {s.get_name() for s in top.get_symbols() if s.is_referenced()}

    def walk(table):
        for child in table.get_children():
            for s in child.get_symbols():
                if s.is_declared_global() and s.is_assigned():
                    defined.add(s.get_name())  # global x; x = ... in a function
                free = (
                    s.is_global()
                    if child.get_type() != 'class'
                    else not (s.is_assigned() or s.is_local() or s.is_imported())
                )
                if s.is_referenced() and free:
                    used.add(s.get_name())
            walk(child)

    walk(top)
    return defined, imported, used - defined - imported


def layout_errors(sources: dict[str, str]) -> list[str]:
    """One line for each name a part uses that its room may not, or that nothing defines."""
    errors = []
    for program, parts in programs().items():
        home: dict[str, str] = {}
        seen = {}
        for part in parts:
            seen[part] = bindings(sources[part], part)
            for n in seen[part][0]:
                home.setdefault(n, part)
        for part in parts:
            room = part.split('/')[0]
            allowed = may_use(room) | {room}
            _, _, used = seen[part]
            for n in sorted(used - BUILTINS):
                where = home.get(n)
                if where is None:
                    if program == 'kernel' and n in HOST_NAMES:
                        continue
                    errors.append(
                        '%s uses %s, which no part of the %s program defines (a module: import it there)'
                        % (part, n, program)
                    )
                elif where.split('/')[0] not in allowed:
                    errors.append(
                        '%s uses %s of %s: room %s may use %s'
                        % (part, n, where, room, ', '.join(sorted(allowed - {room})) or 'nothing')
                    )
    return errors


def sources() -> dict[str, str]:
    return {p: (PACKAGE / p).read_text() for parts in programs().values() for p in parts}


def test_every_room_says_what_it_owns_and_may_use():
    assert set(ROOMS) == {'runtime', 'profile', 'sql', 'ipython', 'variance', 'report', 'cluster'}
    for room in ROOMS:
        doc = (PACKAGE / room / '__init__.py').read_text()
        assert doc.startswith('"""'), 'quarry_kernel/%s/__init__.py has no docstring' % room
        assert may_use(room) <= set(ROOMS), room


def test_parts_use_only_the_names_their_room_may():
    assert layout_errors(sources()) == []


# The rule can fail: a name of a room not allowed, a name nothing defines
# and a module used without its import are each caught.
@pytest.mark.parametrize(
    ('part', 'line', 'want'),
    [
        (
            'variance/words.py',
            'def _layout_probe():\n    return check_cells([])\n',
            'variance/words.py uses check_cells of ipython/syntax.py: room variance may use runtime',
        ),
        (
            'profile/csv.py',
            'def _layout_probe():\n    return send({})\n',
            'profile/csv.py uses send, which no part of the profile program defines',
        ),
        (
            'report/capture.py',
            'def _layout_probe():\n    return undefined_thing\n',
            'report/capture.py uses undefined_thing, which no part of the kernel program defines',
        ),
    ],
)
def test_layout_rule_catches_breaks(part, line, want):
    src = sources()
    src[part] += '\n' + line
    assert any(e.startswith(want) for e in layout_errors(src)), layout_errors(src)
