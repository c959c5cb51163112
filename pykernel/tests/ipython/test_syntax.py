"""IPython's line syntax made Python, and the lines refused (moved from the
Go side's sandbox/ipython_shell_test.go, cases kept; the Go side keeps what
the wire shows: a refused cell runs no line, the check operation's answer)."""

import ast

import pytest


def transform(kernel, code):
    """As a cell is run: automagic first, then IPython's token rules."""
    return kernel.ipython_transform(kernel.ipy_automagic(code, {}))


# Each line as IPython 9 reads it, and the call the kernel makes of it.
REWRITES = [
    ('!ls data', "__quarry_ipython__.system('ls data')\n", ''),
    ('x = !wc -l f', "x = __quarry_ipython__.getoutput('wc -l f')\n", ''),
    (
        'files = !ls\n!!echo hi',
        "files = __quarry_ipython__.getoutput('ls')\n__quarry_ipython__.getoutput('echo hi')\n",
        '',
    ),
    ('%time total = sum(range(10))', "__quarry_ipython__.run_line_magic('time', 'total = sum(range(10))')\n", ''),
    (
        'for i in range(2):\n    %time i * 2',
        "for i in range(2):\n    __quarry_ipython__.run_line_magic('time', 'i * 2')\n",
        '',
    ),
    ('%env A=b', "__quarry_ipython__.run_line_magic('env', 'A=b')\n", ''),
    ('%matplotlib inline', 'pass\n', ''),
    (',f a b', 'f("a", "b")\n', ''),
    ('%%time\nx=1', '\nx=1\n', 'time'),
]


@pytest.mark.parametrize(('code', 'want', 'magic'), REWRITES, ids=[c[0] for c in REWRITES])
def test_ipython_lines_become_python(kernel, code, want, magic):
    src, cell_magic, notes = transform(kernel, code)
    assert (src, cell_magic) == (want, magic)
    assert notes == []
    ast.parse(src)  # and it is Python


def test_plain_python_is_left_alone(kernel):
    code = "x = 5 % 3\ns = '%run not-code'\n"
    assert transform(kernel, code) == (code, '', [])


def test_help_lines_are_skipped_with_a_note(kernel):
    src, _, notes = transform(kernel, 'total = 1\ntotal?\n?np.mean\ntotal')
    assert src.splitlines()[1:3] == ['pass', 'pass']
    assert len(notes) == 2
    assert 'line 2: total?: IPython help is not shown' in notes[0]


# What has no meaning in the sandbox stops the cell before any of it runs,
# naming the line and what to do.
REFUSED = [
    ('ran = 1\n%run helpers.py', 'line 2: %run helpers.py: it runs another file'),
    ('ran = 1\n%who', 'IPython magic %who has no meaning in quarry'),
    ('ran = 1\n%cd data', 'line 2: %cd data: the code runs in the notebook\'s folder'),
    ('ran = 1\n%load_ext sql', 'IPython extensions do not load'),
    ('%%html\n<b>x</b>', 'line 1: %%html: cell magic %%html does not run'),
    ('ran = 1\n%%bash\nls', 'line 2: %%bash: a cell magic must be on the cell\'s first line'),
    ('run helpers.py', 'line 1: %run helpers.py: it runs another file'),
    ('ran = 1\nx = %config Foo = 1', 'line 2: x = %config Foo = 1: only %config InlineBackend'),
    ('ran = 1\nif ran:\n    %edit', 'line 3: %edit: there is no editor'),
]


@pytest.mark.parametrize(('code', 'want'), REFUSED, ids=[c[0] for c in REFUSED])
def test_lines_without_a_meaning_here_are_refused(kernel, code, want):
    with pytest.raises(kernel.IPythonSyntaxRefused) as refused:
        transform(kernel, code)
    assert want in str(refused.value)


def test_check_names_every_refused_line_of_every_cell(kernel):
    got = kernel.check_cells(
        [
            {'cell': 1, 'code': 'checked = 1\n!ls data\nx = !wc -l f\n%matplotlib inline\ndf.head?'},
            {'cell': 3, 'code': '%%bash\nls'},
            {
                'cell': 4,
                'code': "import os\n%run other.py\nfor i in range(3):\n    %who\ns = '''\n%run not-code\n'''\n%cd ..",
            },
            {'cell': 6, 'code': "get_ipython().run_line_magic('run', 'x.py')\nget_ipython().system('ls')"},
            {'cell': 7, 'code': 'def f(:\n    %run broken'},  # fails as itself when it runs
        ]
    )
    assert [(r['cell'], r['line'], r['text'], r['why'].split(':')[0]) for r in got] == [
        (4, 2, '%run other.py', 'it runs another file'),
        (4, 4, '%who', 'IPython magic %who has no meaning in quarry'),
        (4, 8, '%cd ..', "the code runs in the notebook's folder"),
        (6, 1, "get_ipython().run_line_magic('run', 'x.py')", 'it runs another file'),
    ]
