"""The kernel's two programs, assembled as the host assembles them.

The host sends the files parts.txt names as one program each (see
quarry_kernel's docstring); the tests load them the same way, from the same
list, rather than importing modules that only work together.
"""

import pathlib
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / 'quarry_kernel'

# Set by the host before the kernel's parts run (sandbox/kernel_conn.go,
# limits.go, kernel_imports.go): the protocol's fds, the profiler's source
# and the imports settings.
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


def program(name: str) -> list[str]:
    """The parts of one program of parts.txt, in the order they run."""
    parts: list[str] = []
    current = None
    for line in (ROOT / 'parts.txt').read_text().splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('['):
            current = line.strip('[]')
        elif current == name:
            parts.append(line)
    return parts


def load_profile() -> types.ModuleType:
    """The profiler as the kernel runs it: one module, quarry_profile."""
    mod = types.ModuleType('quarry_profile')
    src = '\n'.join((PACKAGE / p).read_text() for p in program('profile'))
    exec(compile(src, '<quarry-profile>', 'exec'), mod.__dict__)
    return mod


def load_kernel() -> dict:
    """The kernel's namespace with every part but the main loop run, each
    compiled under its own name so a traceback names the file."""
    ns: dict = {
        '__name__': '__quarry__',
        'QIN': None,
        'QOUT': None,
        'PROFILE_SRC': '',
        'IMPORTS_MODE': 'names',
        'EAGER_IMPORTS': False,
        'IMPORTS_DELAY': 0,
        'IMPORTS_BROKEN': [],
        'IMPORTS_SLOW': {},
    }
    for part in program('kernel'):
        if part == 'runtime/kernel.py':
            continue  # main(): the loop on the protocol fds
        exec(compile((PACKAGE / part).read_text(), 'quarry_kernel/' + part, 'exec'), ns)
    ns['profile_mod'] = load_profile()
    return ns


@pytest.fixture(scope='session')
def profiler() -> types.ModuleType:
    return load_profile()


@pytest.fixture(scope='session')
def kernel() -> types.SimpleNamespace:
    return types.SimpleNamespace(**load_kernel())


# The profile request's row for a file the host named so (filekind's table).
KINDS = {
    '.csv': {'name': 'csv', 'reader': 'csv', 'reads': ['pd.read_csv', 'pd.read_fwf']},
    '.tsv': {'name': 'tsv', 'reader': 'csv', 'reads': ['pd.read_csv', 'pd.read_fwf']},
    '.txt': {'name': 'txt', 'reader': 'csv', 'reads': ['pd.read_csv', 'pd.read_fwf']},
    '.xlsx': {'name': 'xlsx', 'reader': 'excel', 'reads': ['pd.read_excel']},
}


class Profiled:
    """A file profiled as the host asks for it, and its read call run."""

    def __init__(self, profiler: types.ModuleType, path: pathlib.Path):
        self.path = path
        self.profile = profiler.profile(str(path), None, KINDS[path.suffix])
        assert not self.profile.get('error'), self.profile

    def read(self):
        """The DataFrame the profile's read call gives, as the model's first read."""
        import pandas as pd

        call = self.profile['read']
        fn = {'pd.read_csv': pd.read_csv, 'pd.read_fwf': pd.read_fwf, 'pd.read_excel': pd.read_excel}[call['func']]
        return fn(str(self.path), **{a['name']: a['value'] for a in call.get('args') or []})

    def probe(self, expr: str) -> str:
        """repr of expr over _df, the frame the read call gives (as the Go tests read the value back)."""
        return repr(eval(expr, {'_df': self.read()}))


@pytest.fixture
def profile_file(profiler, tmp_path):
    """Write text (or bytes) as a file named name and profile it."""

    def make(name: str, content: str | bytes) -> Profiled:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)
        return Profiled(profiler, path)

    return make
