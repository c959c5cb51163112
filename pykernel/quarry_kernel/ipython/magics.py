# The magics that run in quarry's kernel (sent together with kernel.py,
# after ipython/shell.py, before ipython/syntax.py, whose tables name them): what
# the lines ipython/syntax.py rewrites call, as __quarry_ipython__ in the user's
# namespace, and get_ipython() for code that calls IPython's shell itself.
# Each does what IPython's magic of that name does, arguments expanded as
# IPython expands them ($name, {expr}) except %time and %timeit's.
import os
import re as ipy_re
import shlex as ipy_shlex
import sys as ipy_sys
import time as ipy_time


class UsageError(Exception):
    """A magic used wrongly (IPython's UsageError)."""


def ipy_magic_precision(arg, frame):
    """%precision N; alone, back to the default, as IPython's: numpy's print
    precision and how a float value is shown; returns the format."""
    arg = arg.strip()
    if arg and not arg.isdigit():
        raise UsageError('%%precision %s: give a number of digits, e.g. %%precision 2' % arg)
    np = imported('numpy')  # imports.py: waits for it when it is still to come
    if not arg:
        IPythonRuntime.float_digits = None
        if np is not None:
            np.set_printoptions(precision=8)
        return '%r'
    n = int(arg)
    IPythonRuntime.float_digits = n
    if np is not None:
        np.set_printoptions(precision=n)
    return '%%.%df' % n


def ipy_magic_env(arg, frame):
    """%env: the environment; %env NAME its value; %env NAME=value and
    %env NAME value set it."""
    if arg.strip():
        bits = arg.split('=' if '=' in arg else ' ')
        if len(bits) == 1:
            key = arg.strip()
            if key in os.environ:
                return os.environ[key]
            raise UsageError('Environment does not have key: %s' % key)
        return ipy_magic_set_env(arg, frame)
    env = dict(os.environ)
    for key in list(env):
        if any(s in key.lower() for s in ('key', 'token', 'secret')):
            env[key] = '<hidden>'
    return env


def ipy_magic_set_env(arg, frame):
    bits = arg.split('=' if '=' in arg else ' ', 1)
    if not arg.strip() or len(bits) < 2:
        raise UsageError("usage is 'set_env var=val'")
    var, val = bits[0].strip(), bits[1].strip()
    if ipy_re.match(r'.*\s.*', var):
        raise UsageError("refusing to set env var with whitespace: '%s'" % val)
    os.environ[var] = val
    print('env: %s=%s' % (var, val))


def ipy_magic_time(arg, frame):
    """%time STATEMENT: runs it and prints the times; an expression's value
    is returned."""
    import ast

    g, l = frame.f_globals, frame.f_locals
    t0, c0 = ipy_time.perf_counter(), ipy_cpu()
    tree = ast.parse(arg, '<%time>', 'exec')
    try:
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
            return eval(compile(ast.Expression(tree.body[0].value), '<%time>', 'eval'), g, l)
        exec(compile(tree, '<%time>', 'exec'), g, l)
    finally:
        ipy_print_time(c0, ipy_time.perf_counter() - t0)


def ipy_magic_timeit(arg, frame):
    loops, repeat, stmt = ipy_timeit_flags(arg)
    code = compile(stmt, '<%timeit>', 'exec')
    g, l = frame.f_globals, frame.f_locals
    ipy_timeit(lambda: exec(code, g, l), loops, repeat)


def ipy_magic_sx(arg, frame):
    """%sx CMD, %system CMD: the output's lines."""
    return ipy_getoutput(arg, None, '%sx ' + arg)


def ipy_magic_pwd(arg, frame):
    return os.getcwd()


def ipy_magic_pip(arg, frame):
    raise PackageRequest('pip', ipy_packages('pip', ipy_shlex.split(arg)), '%pip ' + arg)


def ipy_magic_conda(arg, frame):
    raise PackageRequest('conda', ipy_packages('conda', ipy_shlex.split(arg)), '%conda ' + arg)


def ipy_magic_writefile(line, cell):
    """%%writefile [-a] FILE: the cell's text into FILE (relative to the
    working folder), saying which it did, as IPython."""
    words = ipy_shlex.split(line)
    append = any(w in ('-a', '--append') for w in words)
    names = [w for w in words if w not in ('-a', '--append')]
    if len(names) != 1:
        raise UsageError('%%writefile: give one file name, e.g. %%writefile helpers.py')
    filename = os.path.expanduser(names[0])
    if os.path.exists(filename):
        print(('Appending to %s' if append else 'Overwriting %s') % filename)
    else:
        print('Writing %s' % filename)
    with open(filename, 'a' if append else 'w', encoding='utf-8') as f:
        f.write(cell)


def ipy_script_as(program):
    """%%bash, %%sh, %%perl ...: %%script PROGRAM with the line's options."""
    return lambda line, cell: ipy_script(program + (' ' + line if line else ''), cell)


# IPython's default aliases on Linux (IPython/core/alias.py): %ls, %cat ...,
# a one-line cell `ls data` too (automagic).
IPY_ALIASES = {
    'mkdir': 'mkdir',
    'rmdir': 'rmdir',
    'mv': 'mv',
    'rm': 'rm',
    'cp': 'cp',
    'cat': 'cat',
    'ls': 'ls -F --color',
    'll': 'ls -F -o --color',
    'lf': 'ls -F -o --color %l | grep ^-',
    'lk': 'ls -F -o --color %l | grep ^l',
    'ldir': 'ls -F -o --color %l | grep /$',
    'lx': 'ls -F -o --color %l | grep ^-..x',
}


def ipy_alias(cmd):
    def run(arg, frame):
        line = cmd.replace('%l', arg) if '%l' in cmd else '%s %s' % (cmd, arg)
        ipy_system(line, frame, line)

    return run


class IPythonRuntime:
    """What the rewritten lines call, as __quarry_ipython__ in the user's
    namespace."""

    notes = []  # type: list[str]
    float_digits = None  # %precision: how a float value is shown

    @staticmethod
    def system(cmd):
        ipy_system(cmd, ipy_sys._getframe(1), '!' + cmd)

    @staticmethod
    def getoutput(cmd, split=True):
        return ipy_getoutput(cmd, ipy_sys._getframe(1), '!' + cmd, split)

    @staticmethod
    def run_line_magic(name, line, _depth=1):
        frame = ipy_sys._getframe(_depth)
        why = ipy_line_refusal(name, line)
        if why:
            raise IPythonSyntaxRefused('%%%s %s: %s' % (name, line, why))
        fn = IPY_LINE_MAGICS[name]
        if fn is IPY_NOOP:
            return None
        if name not in ('time', 'timeit'):
            line = ipy_var_expand(line, frame)
        return fn(line, frame)

    @staticmethod
    def run_cell_magic(name, line, cell):
        why = ipy_cell_refusal(name)
        if why:
            raise IPythonSyntaxRefused('%%%%%s: %s' % (name, why))
        fn = IPY_CELL_MAGICS[name]
        if fn is None:
            raise IPythonSyntaxRefused('%%%%%s: put it on the first line of the cell' % name)
        if cell == '':
            raise UsageError('%%%%%s is a cell magic, but the cell body is empty.' % name)
        return fn(ipy_var_expand(line, ipy_sys._getframe(1)), cell)


class IPyShell:
    """get_ipython() in the user's namespace: the few methods of IPython's
    shell that code calls to run its syntax."""

    def system(self, cmd):
        ipy_system(cmd, ipy_sys._getframe(1), '!' + cmd)

    def getoutput(self, cmd, split=True, depth=0):
        return ipy_getoutput(cmd, ipy_sys._getframe(1 + depth), '!' + cmd, split)

    def run_line_magic(self, magic_name, line, _stack_depth=1):
        return IPythonRuntime.run_line_magic(magic_name, line, _depth=1 + _stack_depth)

    def run_cell_magic(self, magic_name, line, cell):
        return IPythonRuntime.run_cell_magic(magic_name, line, cell)

    def magic(self, arg_s):
        name, _, line = arg_s.lstrip('%').partition(' ')
        return IPythonRuntime.run_line_magic(name, line, _depth=2)

    def var_expand(self, cmd, depth=0):
        return ipy_var_expand(cmd, ipy_sys._getframe(1 + depth))

    @property
    def user_ns(self):
        return ipy_sys.modules['__main__'].__dict__

    def __getattr__(self, name):
        raise AttributeError(
            'get_ipython().%s is IPython\'s; quarry\'s kernel has system, getoutput, '
            'run_line_magic, run_cell_magic and user_ns' % name
        )


ipy_shell_object = IPyShell()


def ipy_automagic(code, ns):
    """A one-line cell that names a magic or an alias (pwd, ls data) runs it,
    as IPython's automagic does, unless the name is in ns (the user's) or
    Python's."""
    line = code.strip()
    if not line or '\n' in line:
        return code
    m = ipy_re.match(r'^([\w.*]*)(.*)$', line)
    ifun, rest = m.group(1), m.group(2)
    head = ifun.split('.', 1)[0]
    if ifun not in IPY_LINE_MAGICS and ifun not in IPY_REFUSED:
        return code
    import builtins
    import keyword

    if head in ns or hasattr(builtins, head) or keyword.iskeyword(head):
        return code
    if rest.strip()[:1] in ('=', ','):
        return code  # an assignment, as IPython's AssignmentChecker says
    return '%' + line


def ipy_fmt_time(s):
    for unit, scale in (('s', 1.0), ('ms', 1e-3), ('\u00b5s', 1e-6), ('ns', 1e-9)):
        if s >= scale or unit == 'ns':
            return '%.3g %s' % (s / scale, unit)


def ipy_cpu():
    t = os.times()
    return t.user, t.system


def ipy_print_time(c0, wall):
    """IPython's two lines, from the CPU times at the start."""
    u, s = ipy_cpu()
    u, s = u - c0[0], s - c0[1]
    print(
        'CPU times: user %s, sys: %s, total: %s\nWall time: %s'
        % (ipy_fmt_time(u), ipy_fmt_time(s), ipy_fmt_time(u + s), ipy_fmt_time(wall))
    )


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
    print(
        '%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, %s loop%s each)'
        % (
            ipy_fmt_time(mean),
            ipy_fmt_time(sd),
            repeat,
            '' if repeat == 1 else 's',
            format(loops, ','),
            '' if loops == 1 else 's',
        )
    )


def ipython_execute(code, cid, execute):
    """Runs one cell through execute (kernel.py's) with IPython's syntax
    made Python; the notes go to the cell's result."""
    ipy_install()
    code, cell, notes = ipython_transform(ipy_automagic(code, ipy_sys.modules['__main__'].__dict__))
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
