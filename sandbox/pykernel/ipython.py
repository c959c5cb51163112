# IPython's own syntax for quarry's kernel (sent together with kernel.py).
# Notebooks and models write IPython, not Python: the lines with a plain
# meaning here (figure backends, autoreload, timing, %env, %precision, help
# lines) become Python line for line, so tracebacks keep their line
# numbers; the rest (shell escapes, package installs, %run, magics with no
# meaning in a sandbox) stop the cell before any of it runs, naming the
# line and what to do. docs/usage.md lists both. A small stand-in for
# IPython.display gives display(), HTML, Markdown and Image their meaning.
import re as ipy_re
import sys as ipy_sys
import time as ipy_time
import types as ipy_types

IPY_NAME = '__quarry_ipython__'

# Refused magics and what to do instead.
IPY_SHELL = 'shell commands do not run in quarry\'s sandbox: do it in Python (os, pathlib, shutil) or outside quarry'
IPY_INSTALL = ('the sandbox has no network and installs nothing: remove the line; the sandbox has pandas, numpy, '
               'matplotlib, seaborn, scipy, statsmodels and scikit-learn')
IPY_REFUSED = {
    'system': IPY_SHELL, 'sx': IPY_SHELL, 'sh': IPY_SHELL, 'bash': IPY_SHELL, 'script': IPY_SHELL,
    'perl': IPY_SHELL, 'ruby': IPY_SHELL, 'python': IPY_SHELL, 'python3': IPY_SHELL,
    'pip': IPY_INSTALL, 'conda': IPY_INSTALL, 'mamba': IPY_INSTALL, 'micromamba': IPY_INSTALL,
    'run': 'it runs another file: paste that file\'s code into a cell before this one',
    'load': 'it loads code from a file or the network: paste the code into the cell',
    'cd': 'the code runs in the notebook\'s folder: use paths relative to it',
    'writefile': 'write the file in Python: open(name, "w").write(text)',
}

IPY_CELL_NAMES = ('time', 'timeit', 'capture')


class IPythonSyntaxRefused(SyntaxError):
    pass


def ipy_refuse(lineno, line, why):
    raise IPythonSyntaxRefused('line %d: %s: %s' % (lineno, line.strip()[:80], why))


def ipy_statement_lines(src):
    """The numbers (0-based) of the lines that begin a statement: outside
    strings and brackets and not continued, where IPython reads its syntax."""
    starts, depth, i, n = [0], 0, 0, len(src)
    line = 0
    while i < n:
        c = src[i]
        if c == '#':
            while i < n and src[i] != '\n':
                i += 1
            continue
        if c in '\'"':
            q = src[i:i + 3] if src[i:i + 3] in ('"""', "'''") else c
            j = i + len(q)
            while j < n and not src.startswith(q, j):
                if src[j] == '\\':
                    j += 1
                    if j < n and src[j] == '\n':
                        line += 1
                elif src[j] == '\n':
                    if len(q) == 1:
                        break
                    line += 1
                j += 1
            i = j + len(q)
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth = max(0, depth - 1)
        elif c == '\\' and i + 1 < n and src[i + 1] == '\n':
            line, i = line + 1, i + 2
            continue
        elif c == '\n':
            line += 1
            if depth == 0:
                starts.append(line)
        i += 1
    return set(starts)


def ipy_code_part(line):
    """The line without its comment (quotes respected)."""
    q = None
    for k, ch in enumerate(line):
        if q:
            if ch == q:
                q = None
        elif ch in '\'"':
            q = ch
        elif ch == '#':
            return line[:k]
    return line


def ipy_call(indent, fn, *args):
    return '%s%s.%s(%s)' % (indent, IPY_NAME, fn, ', '.join(args))


def ipy_line_magic(lineno, line, indent, body):
    name, _, arg = body.partition(' ')
    name, arg = name.strip(), arg.strip()
    if name in ('matplotlib', 'autoreload', 'aimport'):
        return indent + 'pass'  # figures are captured anyway; there are no modules of yours to reload
    if name == 'config':
        if arg.startswith('InlineBackend'):
            return indent + 'pass'
        ipy_refuse(lineno, line, 'only %config InlineBackend... has a meaning here (figures are captured anyway): remove the line')
    if name == 'load_ext':
        if arg == 'autoreload':
            return indent + 'pass'
        ipy_refuse(lineno, line, 'IPython extensions do not load in quarry: remove the line')
    if name == 'precision':
        return ipy_call(indent, 'precision', repr(arg))
    if name == 'env':
        return ipy_call(indent, 'env', repr(arg))
    if name == 'time':
        if not arg:
            ipy_refuse(lineno, line, 'give %time a statement, or use %%time on the first line of the cell')
        return ipy_call(indent, 'time', repr(arg), 'globals()', 'locals()')
    if name == 'timeit':
        loops, repeat, stmt = ipy_timeit_flags(arg)
        if not stmt:
            ipy_refuse(lineno, line, 'give %timeit a statement, or use %%timeit on the first line of the cell')
        return ipy_call(indent, 'timeit', repr(stmt), 'globals()', 'locals()', str(loops), str(repeat))
    if name in IPY_REFUSED:
        ipy_refuse(lineno, line, IPY_REFUSED[name])
    ipy_refuse(lineno, line, 'IPython magic %%%s has no meaning in quarry: write it as plain Python or remove the line' % name)


def ipy_timeit_flags(arg):
    loops = repeat = 0
    words = arg.split()
    while words and words[0].startswith('-'):
        flag = words.pop(0)
        if flag in ('-n', '-r') and words and words[0].isdigit():
            v = int(words.pop(0))
            if flag == '-n':
                loops = v
            else:
                repeat = v
        # -q, -o, -p N and the like change only how the timing is printed
        elif flag == '-p' and words and words[0].isdigit():
            words.pop(0)
    return loops, repeat, ' '.join(words)


def ipython_transform(code):
    """code with IPython's syntax made Python, line for line, and the cell
    magic of its first line ('', 'time', 'timeit'); notes for what was
    dropped. Raises IPythonSyntaxRefused for what does not run."""
    if '%' not in code and '!' not in code and '?' not in code:
        return code, '', []
    lines = code.split('\n')
    starts = ipy_statement_lines(code)
    cell, notes = '', []
    first = next((k for k, l in enumerate(lines) if l.strip() and not l.lstrip().startswith('#')), None)
    if first is not None and lines[first].lstrip().startswith('%%'):
        line = lines[first]
        name = line.strip()[2:].split(' ')[0]
        if name in ('time', 'timeit'):
            cell = name
            lines[first] = ''
            if name == 'timeit':
                cell = 'timeit:%d:%d' % ipy_timeit_flags(line.strip()[2 + len(name):])[:2]
        elif name == 'capture':
            lines[first] = ''  # the output is shown rather than kept in a variable
            notes.append('%%capture: the output is shown, not captured')
        else:
            ipy_refuse(first + 1, line, IPY_REFUSED.get(name, 'cell magic %%%%%s does not run in quarry: write the cell as plain Python' % name))
    for k, line in enumerate(lines):
        if k not in starts:
            continue
        stripped = line.lstrip()
        indent = line[:len(line) - len(stripped)]
        code_part = ipy_code_part(stripped).rstrip()
        if not code_part:
            continue
        if code_part.startswith('%%'):
            ipy_refuse(k + 1, line, 'a cell magic must be on the cell\'s first line')
        if code_part.startswith('%'):
            lines[k] = ipy_line_magic(k + 1, line, indent, code_part[1:])
        elif code_part.startswith('!'):
            ipy_refuse(k + 1, line, IPY_SHELL)
        elif ipy_re.match(r'^[\w.,\s\[\]()*]+=\s*[!%]', code_part) and not ipy_re.match(r'^[\w.\[\]]+\s*[=!<>]=', code_part):
            ipy_refuse(k + 1, line, IPY_SHELL if '!' in code_part.split('=', 1)[1][:2] else
                       'assigning the output of a magic is not run by quarry: write it as plain Python')
        elif code_part.endswith('?') or (code_part.startswith('?') and len(code_part) > 1):
            lines[k] = indent + 'pass'
            notes.append('line %d: %s: IPython help is not shown; the line was skipped' % (k + 1, code_part[:80]))
    return '\n'.join(lines), cell, notes


class IPythonRuntime:
    """What the rewritten lines call, as __quarry_ipython__ in the user's
    namespace."""

    notes = []
    float_digits = None  # %precision: how a float value is shown

    @staticmethod
    def precision(arg):
        """%precision N; alone, back to the defaults, as IPython's."""
        arg = arg.strip()
        if arg and not arg.isdigit():
            raise ValueError('%%precision %s: give a number of digits, e.g. %%precision 2' % arg)
        import numpy as np
        import pandas as pd
        if not arg:
            np.set_printoptions(precision=8)
            pd.reset_option('display.precision')
            IPythonRuntime.float_digits = None
            return
        n = int(arg)
        np.set_printoptions(precision=n)
        pd.set_option('display.precision', n)
        IPythonRuntime.float_digits = n

    @staticmethod
    def env(arg):
        import os
        if not arg:
            raise ValueError('%env with no name lists the environment; read os.environ instead')
        if '=' in arg:
            name, _, value = arg.partition('=')
        else:
            name, _, value = arg.partition(' ')
            if not value.strip():
                print(os.environ.get(name.strip(), ''))
                return
        os.environ[name.strip()] = value.strip()
        print('env: %s=%s' % (name.strip(), value.strip()))

    @staticmethod
    def time(src, g, l):
        import ast
        t0, c0 = ipy_time.perf_counter(), ipy_cpu()
        tree = ast.parse(src, '<%time>', 'exec')
        value = None
        try:
            if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
                value = eval(compile(ast.Expression(tree.body[0].value), '<%time>', 'eval'), g, l)
            else:
                exec(compile(tree, '<%time>', 'exec'), g, l)
        finally:
            ipy_print_time(c0, ipy_time.perf_counter() - t0)
        return value

    @staticmethod
    def timeit(src, g, l, loops=0, repeat=0):
        code = compile(src, '<%timeit>', 'exec')
        return ipy_timeit(lambda: exec(code, g, l), loops, repeat)


def ipy_fmt_time(s):
    for unit, scale in (('s', 1.0), ('ms', 1e-3), ('\u00b5s', 1e-6), ('ns', 1e-9)):
        if s >= scale or unit == 'ns':
            return '%.3g %s' % (s / scale, unit)


def ipy_cpu():
    import os
    t = os.times()
    return t.user, t.system


def ipy_print_time(c0, wall):
    """IPython's two lines, from the CPU times at the start."""
    u, s = ipy_cpu()
    u, s = u - c0[0], s - c0[1]
    print('CPU times: user %s, sys: %s, total: %s\nWall time: %s' % (
        ipy_fmt_time(u), ipy_fmt_time(s), ipy_fmt_time(u + s), ipy_fmt_time(wall)))


# %timeit runs the code until about this long per repeat, and at most this
# many loops, so a rerun is not held up for the seconds IPython may take.
IPY_TIMEIT_RUN = 0.05
IPY_TIMEIT_MAX_LOOPS = 10000


def ipy_timeit(run, loops=0, repeat=0):
    repeat = min(repeat or 7, 20)
    if not loops:
        loops = 1
        while loops < IPY_TIMEIT_MAX_LOOPS:
            t0 = ipy_time.perf_counter()
            for _ in range(loops):
                run()
            if ipy_time.perf_counter() - t0 >= IPY_TIMEIT_RUN:
                break
            loops *= 10
    times = []
    for _ in range(repeat):
        t0 = ipy_time.perf_counter()
        for _ in range(loops):
            run()
        times.append((ipy_time.perf_counter() - t0) / loops)
    mean = sum(times) / len(times)
    sd = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
    print('%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, %s loop%s each)' % (
        ipy_fmt_time(mean), ipy_fmt_time(sd), repeat, '' if repeat == 1 else 's',
        format(loops, ','), '' if loops == 1 else 's'))


def ipython_execute(code, cid, execute):
    """Runs one cell through execute (kernel.py's) with IPython's syntax
    made Python; the notes go to the cell's result."""
    ipy_install()
    code, cell, notes = ipython_transform(code)
    IPythonRuntime.notes = notes
    if cell == 'time':
        t0, c0 = ipy_time.perf_counter(), ipy_cpu()
        try:
            return execute(code, cid)
        finally:
            ipy_print_time(c0, ipy_time.perf_counter() - t0)
    if cell.startswith('timeit'):
        _, loops, repeat = cell.split(':')
        execute(code, cid)  # once, so a failing cell fails as itself
        ipy_timeit(lambda: execute(code, cid), int(loops), int(repeat))
        return None
    return execute(code, cid)


def ipython_notes():
    notes, IPythonRuntime.notes = IPythonRuntime.notes, []
    return notes


# ---- IPython.display -----------------------------------------------------

class IPyDisplayObject:
    def __init__(self, data=None, url=None, filename=None, **kw):
        if filename is None and isinstance(data, str) and len(data) < 4096 and '\n' not in data and '<' not in data:
            import os
            if os.path.isfile(data):
                filename = data
        if filename is not None and data is None:
            with open(filename, 'rb') as f:
                data = f.read()
        if url is not None and data is None:
            raise ValueError('%s(url=...) reads from the network, which the sandbox has none of: '
                             'save the file beside the notebook and give its name' % type(self).__name__)
        self.data, self.filename = data, filename

    def __repr__(self):
        return ipy_text_of(self)


class HTML(IPyDisplayObject):
    pass


class Markdown(IPyDisplayObject):
    pass


class Image(IPyDisplayObject):
    pass


def ipy_html_table(html):
    """The first table of an HTML text, as a DataFrame; None when it has none."""
    if '<table' not in html.lower():
        return None
    try:
        import io
        import pandas as pd
        tables = pd.read_html(io.StringIO(html), flavor='lxml')
        if not tables:
            return None
        t = tables[0]
        if t.columns.nlevels > 1:
            # to_html() writes the index's name as a second header row
            t.columns = [' '.join(str(p) for p in c if not str(p).startswith('Unnamed:')) or str(c[-1]) for c in t.columns]
        return t
    except Exception:
        return None


def ipy_html_text(html):
    import html as h
    return h.unescape(ipy_re.sub(r'<[^>]+>', '', html)).strip()


def ipy_plain(obj):
    """What obj means as a plain value: an HTML table its DataFrame, a
    Styler its data, Markdown its text."""
    if isinstance(obj, HTML):
        t = ipy_html_table(obj.data or '')
        return t if t is not None else IPyText(ipy_html_text(obj.data or ''))
    if isinstance(obj, (Markdown, Image)):
        return IPyText(ipy_text_of(obj))
    if type(obj).__name__ == 'Styler' and hasattr(obj, 'data'):
        return obj.data
    if isinstance(obj, float) and IPythonRuntime.float_digits is not None:
        return IPyText('%.*f' % (IPythonRuntime.float_digits, obj))
    return obj


class IPyText:
    """Text shown as itself, without a string's quotes."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def ipy_text_of(obj):
    if isinstance(obj, Image):
        what = obj.filename or '%d bytes' % len(obj.data or b'')
        return '<Image: %s>' % what
    if isinstance(obj, Markdown):
        return str(obj.data or '')
    return repr(ipy_plain(obj))


def display(*objs, **kw):
    """IPython's display(): each object printed as its plain text (a table
    as pandas prints it)."""
    for o in objs:
        print(ipy_text_of(o))


def clear_output(wait=False):
    pass


class IPyStyler:
    """pandas' Styler where jinja2 (which it needs) is missing: the styling
    calls are taken and the table shown as its data."""

    def __init__(self, data):
        self.data = data

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return lambda *a, **k: self

    def __repr__(self):
        return repr(self.data)


IPyStyler.__name__ = 'Styler'


class IPyFinder:
    """Finds the stand-in modules (last on sys.meta_path: a real IPython
    would be found first)."""

    def __init__(self, mods):
        self.mods = mods

    def find_spec(self, name, path=None, target=None):
        if name not in self.mods:
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, self, is_package=name in ('IPython', 'IPython.core'))

    def create_module(self, spec):
        return self.mods[spec.name]

    def exec_module(self, module):
        pass


class IPyState:
    installed = False
    styler = False


def ipy_install():
    """The stand-in modules, display() in the user's namespace, and a
    Styler when pandas has none: once (the Styler once pandas is loaded)."""
    if not IPyState.installed:
        IPyState.installed = True
        ns = ipy_sys.modules['__main__'].__dict__
        ns.setdefault(IPY_NAME, IPythonRuntime)
        try:
            import importlib.util
            real = importlib.util.find_spec('IPython') is not None
        except Exception:
            real = False
        if not real:
            disp = ipy_types.ModuleType('IPython.display')
            for name, v in (('display', display), ('HTML', HTML), ('Markdown', Markdown), ('Image', Image),
                            ('clear_output', clear_output), ('DisplayObject', IPyDisplayObject)):
                setattr(disp, name, v)
            core = ipy_types.ModuleType('IPython.core')
            core.display = disp
            top = ipy_types.ModuleType('IPython')
            top.display, top.core, top.get_ipython = disp, core, lambda: None
            # Libraries that look for IPython (matplotlib) read its version
            # and then find no shell, as in plain Python.
            top.version_info, top.__version__ = (8, 0, 0), '8.0.0'
            top.__path__ = core.__path__ = []
            # Found only when the code imports them, so libraries that look
            # for IPython in sys.modules find none until then.
            ipy_sys.meta_path.append(IPyFinder({'IPython': top, 'IPython.display': disp, 'IPython.core': core,
                                                'IPython.core.display': disp}))
            ns.setdefault('display', display)
    pd = ipy_sys.modules.get('pandas')
    if pd is not None and not IPyState.styler:
        IPyState.styler = True
        try:
            import jinja2  # noqa: F401 -- pandas' own Styler works
        except ImportError:
            pd.DataFrame.style = property(lambda self: IPyStyler(self))
