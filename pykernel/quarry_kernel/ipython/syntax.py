# IPython's own syntax for quarry's kernel (sent together with kernel.py,
# after ipython/shell.py and ipython/magics.py): the one rule set, also for
# a rerun, which asks the kernel to check a notebook (check_cells) before
# any cell runs. Notebooks and models write IPython, not Python: the
# transform finds IPython's syntax as IPython 9 does
# (IPython/core/inputtransformer2.py: the cell magic of the first line,
# then tokens: x = %magic, x = !cmd, !cmd, !!cmd, %magic, ,f a b, ;f a,
# /f a, ?name and name?) and makes each a call of __quarry_ipython__, line
# for line, so tracebacks keep their line numbers. A magic with no
# meaning in a sandbox (%run, %cd, %load, extensions...) stops the cell
# before any of it runs, naming the line and what to do. docs/usage.md
# lists both.
import re as ipy_re
import tokenize as ipy_tokenize
from textwrap import dedent as ipy_dedent

IPY_NAME = '__quarry_ipython__'

IPY_NOOP = 'nothing to do in quarry'  # figures are captured anyway; no modules of yours to reload

# Line magics that run, by name: the runtime's function (ipython/magics.py),
# or IPY_NOOP.
IPY_LINE_MAGICS = {
    'matplotlib': IPY_NOOP,
    'autoreload': IPY_NOOP,
    'aimport': IPY_NOOP,
    'config': IPY_NOOP,
    'load_ext': IPY_NOOP,
    'reload_ext': IPY_NOOP,  # the arguments that do not run are refused (ipy_line_refusal)
    'xmode': IPY_NOOP,
    'pprint': IPY_NOOP,
    'colors': IPY_NOOP,  # how IPython prints, which quarry does its own way
    'precision': ipy_magic_precision,
    'env': ipy_magic_env,
    'set_env': ipy_magic_set_env,
    'time': ipy_magic_time,
    'timeit': ipy_magic_timeit,
    'sx': ipy_magic_sx,
    'system': ipy_magic_sx,
    'pwd': ipy_magic_pwd,
    'pip': ipy_magic_pip,
    'conda': ipy_magic_conda,
    'mamba': ipy_magic_conda,
    'micromamba': ipy_magic_conda,
}
IPY_LINE_MAGICS.update({name: ipy_alias(cmd) for name, cmd in IPY_ALIASES.items()})

# Cell magics that run: the runtime's function of (line, body); time,
# timeit and capture run the body as the cell itself (ipython_execute).
IPY_CELL_MAGICS = {
    'script': ipy_script,
    'writefile': ipy_magic_writefile,
    'sx': ipy_sx_cell,
    'system': ipy_sx_cell,
    '!': ipy_sx_cell,
    'time': None,
    'timeit': None,
    'capture': None,
}
IPY_CELL_MAGICS.update(
    {name: ipy_script_as(name) for name in ('sh', 'bash', 'perl', 'ruby', 'python', 'python2', 'python3', 'pypy')}
)

# Magics refused, and what to do instead.
IPY_REFUSED = {
    'run': 'it runs another file: paste that file\'s code into a cell before this one',
    'load': 'it loads code from a file or the network: paste the code into the cell',
    'loadpy': 'it loads code from a file or the network: paste the code into the cell',
    'cd': 'the code runs in the notebook\'s folder: use paths relative to it',
    'pushd': 'the code runs in the notebook\'s folder: use paths relative to it',
    'popd': 'the code runs in the notebook\'s folder: use paths relative to it',
    'bookmark': 'the code runs in the notebook\'s folder: use paths relative to it',
    'edit': 'there is no editor in the sandbox: write the code into the cell',
    'debug': 'there is no debugger in quarry: print what you need to see',
    'pdb': 'there is no debugger in quarry: print what you need to see',
}
IPY_UNKNOWN = 'IPython magic %%%s has no meaning in quarry: write it as plain Python or remove the line'


class IPythonSyntaxRefused(SyntaxError):
    pass


class IPyRefusal(Exception):
    """One refused line, with its number in the cell (1-based)."""

    def __init__(self, lineno, line, why):
        super().__init__(why)
        self.lineno, self.line, self.why = lineno, line.strip(), why


def ipy_line_refusal(name, arg):
    """Why the line magic %name arg does not run; None when it does."""
    if name in IPY_REFUSED:
        return IPY_REFUSED[name]
    if name not in IPY_LINE_MAGICS:
        return IPY_UNKNOWN % name
    if name == 'config' and not arg.strip().startswith('InlineBackend'):
        return 'only %config InlineBackend... has a meaning here (figures are captured anyway): remove the line'
    if name in ('load_ext', 'reload_ext') and arg.strip() != 'autoreload':
        return 'IPython extensions do not load in quarry: remove the line'
    if name in ('time', 'timeit') and not ipy_timeit_flags(arg)[2]:
        return 'give %%%s a statement, or use %%%%%s on the first line of the cell' % (name, name)
    return None


def ipy_cell_refusal(name):
    if name in IPY_CELL_MAGICS:
        return None
    if name in IPY_REFUSED:
        return IPY_REFUSED[name]
    return 'cell magic %%%%%s does not run in quarry: write the cell as plain Python' % name


def ipy_call(fn, *args):
    return '%s.%s(%s)' % (IPY_NAME, fn, ', '.join(repr(a) for a in args))


# ---- IPython's cleanup of a cell ------------------------------------------


def ipy_leading_empty(lines):
    for i, line in enumerate(lines):
        if line and not line.isspace():
            return lines[i:], i
    return lines, 0


IPY_CLASSIC = (ipy_re.compile(r'^(>>>|\.\.\.)( |$)'), ipy_re.compile(r'^>>>( |$)'))
IPY_PROMPT = ipy_re.compile(r'^(((\[nav\]|\[ins\])?\ )?In\ \[\d+\]:\ |\s*\.{3,}:\ ?)')


def ipy_strip_prompts(lines):
    """Pasted >>> and In [1]: prompts, as IPython strips them; ... only in
    a paste that has a >>> line (it is Python's Ellipsis otherwise)."""
    for prompt, initial in (IPY_CLASSIC, (IPY_PROMPT, IPY_PROMPT)):
        if prompt is IPY_CLASSIC[0] and not any(initial.match(l) for l in lines):
            continue
        if lines and (initial.match(lines[0]) or (len(lines) > 1 and prompt.match(lines[1]))):
            lines = [prompt.sub('', l, count=1) for l in lines]
    return lines


# ---- IPython's token transforms -------------------------------------------


def ipy_tokens_by_line(lines):
    """The tokens of lines, grouped by logical line (IPython's
    make_tokens_by_line); what does not tokenize ends the list."""
    out, depth = [[]], 0
    try:
        for tok in ipy_tokenize.generate_tokens(iter(lines).__next__):
            out[-1].append(tok)
            if tok.type == ipy_tokenize.NEWLINE or (tok.type == ipy_tokenize.NL and depth <= 0):
                out.append([])
            elif tok.string in '([{' and tok.string:
                depth += 1
            elif tok.string in ')]}' and tok.string and depth > 0:
                depth -= 1
    except ipy_tokenize.TokenError, SyntaxError:
        pass
    if not out[-1]:
        out.pop()
    return out


def ipy_assign_op(line):
    depth = 0
    for i, t in enumerate(line):
        if t.string == '=' and depth == 0:
            return i
        if t.string in ('(', '[', '{'):
            depth += 1
        elif t.string in (')', ']', '}') and depth > 0:
            depth -= 1
    return None


def ipy_continued_end(lines, start):
    end = start
    while lines[end].endswith('\\\n'):
        end += 1
        if end >= len(lines):
            break
    return min(end, len(lines) - 1)


def ipy_joined(lines, start, col, end):
    parts = [lines[start][col:]] + lines[start + 1 : end + 1]
    return ' '.join([p.rstrip()[:-1] for p in parts[:-1]] + [parts[-1].rstrip()])


def ipy_find(tokens_by_line):
    """The first IPython syntax in the cell: (line, col, kind), kind one of
    magic_assign, system_assign, escaped, help; None when there is none."""
    found = []
    for line in tokens_by_line:
        ix = ipy_assign_op(line)
        if (
            ix is not None
            and len(line) > ix + 2
            and line[ix + 1].string == '%'
            and line[ix + 2].type == ipy_tokenize.NAME
        ):
            found.append((line[ix + 1].start, 10, 'magic_assign'))
            break
    for line in tokens_by_line:
        ix = ipy_assign_op(line)
        if (
            ix is not None
            and not line[ix].line.strip().startswith('=')
            and len(line) > ix + 1
            and line[ix + 1].type == ipy_tokenize.OP
            and line[ix + 1].string == '!'
        ):
            found.append((line[ix + 1].start, 10, 'system_assign'))
            break
    for line in tokens_by_line:
        ix = 0
        while ix < len(line) and line[ix].type in (ipy_tokenize.INDENT, ipy_tokenize.DEDENT):
            ix += 1
        if ix < len(line) and line[ix].string in ('!', '?', '%', ',', ';', '/'):
            found.append((line[ix].start, 10, 'escaped'))
            break
    for line in tokens_by_line:
        if len(line) > 2 and line[-2].string == '?':
            ix = 0
            while line[ix].type in (ipy_tokenize.INDENT, ipy_tokenize.DEDENT):
                ix += 1
            found.append((line[ix].start, 5, 'help', line[-2].start))
            break
    if not found:
        return None
    found.sort(key=lambda f: (f[0][0], f[0][1], f[1]))
    return found


IPY_HELP_END = ipy_re.compile(r'(%{0,2}(?!\d)[\w*]+(\.(?!\d)[\w*]+|\[-?[0-9]+\])*)(\?\??)$')


class IPyTransform:
    """One cell's transform: lines in, lines out (as many), the notes, and
    the refusals (collected when check is set, else the first raised)."""

    def __init__(self, check=False):
        self.check, self.notes, self.refusals = check, [], []

    def refuse(self, lineno, line, why):
        r = IPyRefusal(lineno, line, why)
        if not self.check:
            raise r
        self.refusals.append(r)
        return 'pass'

    def replace(self, lines, start, end, new):
        """lines with start..end (0-based) replaced by new and blank lines,
        so the lines after keep their numbers."""
        return lines[:start] + [new + '\n'] + ['\n'] * (end - start) + lines[end + 1 :]

    def line_magic(self, start, line, content):
        name, _, arg = content.partition(' ')
        if name.startswith('%'):
            return self.refuse(start + 1, line, 'a cell magic must be on the cell\'s first line')
        why = ipy_line_refusal(name, arg)
        if why:
            return self.refuse(start + 1, line, why)
        if IPY_LINE_MAGICS[name] is IPY_NOOP:
            return 'None'
        return ipy_call('run_line_magic', name, arg)

    def escaped(self, lines, start, col, end):
        line = ipy_joined(lines, start, col, end)
        indent = lines[start][:col]
        orig = lines[start]
        if line[:2] in ('!!', '??'):
            esc, content = line[:2], line[2:]
        else:
            esc, content = line[:1], line[1:]
        if esc == '!':
            call = ipy_call('system', content)
        elif esc == '!!':
            call = ipy_call('getoutput', content)
        elif esc in ('?', '??'):
            self.notes.append(
                'line %d: %s: IPython help is not shown; the line was skipped' % (start + 1, line.strip()[:80])
            )
            call = 'pass'
        elif esc == '%':
            call = self.line_magic(start, orig, content)
            if call == 'None':
                call = 'pass'
        elif esc == ',':
            name, _, args = content.partition(' ')
            call = '%s("%s")' % (name, '", "'.join(args.split()))
        elif esc == ';':
            name, _, args = content.partition(' ')
            call = '%s("%s")' % (name, args)
        else:  # '/'
            name, _, args = content.partition(' ')
            if not name:
                raise SyntaxError('"/" must be followed by a callable name')
            call = '%s(%s)' % (name, ', '.join(args.split()))
        return self.replace(lines, start, end, indent + call)

    def assigned(self, lines, start, col, end, kind):
        lhs = lines[start][:col]
        rhs = ipy_joined(lines, start, col, end)
        if kind == 'system_assign':
            call = ipy_call('getoutput', rhs[1:])
        else:
            call = self.line_magic(start, lines[start], rhs[1:])
        return self.replace(lines, start, end, lhs + call)

    def help_end(self, lines, start, col, q_line):
        piece = ''.join(lines[start : q_line + 1])
        indent, content = piece[:col], piece[col:]
        if not IPY_HELP_END.search(content.rstrip('\n')):
            raise SyntaxError(content)
        self.notes.append(
            'line %d: %s: IPython help is not shown; the line was skipped' % (start + 1, content.strip()[:80])
        )
        return self.replace(lines, start, q_line, indent + 'pass')

    def tokens(self, lines):
        for _ in range(500):
            found = ipy_find(ipy_tokens_by_line(lines))
            if not found:
                return lines
            for f in found:
                (line, col), _, kind = f[:3]
                start = line - 1
                try:
                    if kind == 'help':
                        lines = self.help_end(lines, start, col, f[3][0] - 1)
                    elif kind == 'escaped':
                        lines = self.escaped(lines, start, col, ipy_continued_end(lines, start))
                    else:
                        lines = self.assigned(lines, start, col, ipy_continued_end(lines, start), kind)
                    break
                except SyntaxError:
                    continue
            else:
                return lines
        raise RuntimeError('IPython syntax still changing after 500 passes')

    def get_ipython_calls(self, lines):
        """get_ipython().run_line_magic('name', ...) and the like, with a
        literal name, follow the same rules."""
        for k, line in enumerate(lines):
            for m in IPY_GET_IPYTHON.finditer(line):
                kind, name = m.group(1), m.group(3)
                if kind == 'run_cell_magic':
                    why = ipy_cell_refusal(name)
                elif kind == 'magic':
                    name, _, arg = name.partition(' ')
                    why = ipy_line_refusal(name.lstrip('%'), arg)
                else:
                    why = ipy_line_refusal(name, '-')  # the arguments are not literal
                    why = None if why and why.startswith('give %') else why
                if why:
                    self.refuse(k + 1, line, why)
                    if self.check:
                        continue

    def cell(self, code):
        """(code made Python, the cell magic that runs its body: '',
        'time', 'timeit:N:R' or 'capture')."""
        if not code.endswith('\n'):
            code += '\n'
        lines = code.splitlines(True)
        body, skipped = ipy_leading_empty(lines)
        if all(not l.strip() or l[:1] in ' \t' for l in body):
            body = ipy_dedent(''.join(body)).splitlines(True)
        body = ipy_strip_prompts(body)
        lines = ['\n'] * skipped + body
        magic = ''
        if body and body[0].startswith('%%') and not ipy_re.match(r'%%\w+\?', body[0]):
            first = body[0]
            name, _, line = first[2:].rstrip().partition(' ')
            why = ipy_cell_refusal(name)
            if why:
                self.refuse(skipped + 1, first, why)
                return 'pass\n', ''
            rest = ''.join(body[1:])
            if IPY_CELL_MAGICS[name] is not None:
                call = ipy_call('run_cell_magic', name, line, rest)
                return '\n' * skipped + call + '\n' * len(body), ''
            magic = name
            if name == 'timeit':
                magic = 'timeit:%d:%d' % ipy_timeit_flags(line)[:2]
            elif name == 'capture':
                self.notes.append('%%capture: the output is shown, not captured')
            lines[skipped] = '\n'
        lines = self.tokens(lines)
        self.get_ipython_calls(lines)
        return ''.join(lines), magic


IPY_ESCAPE_LINE = ipy_re.compile(r'^[ \t]*[,;/]', ipy_re.M)  # IPython's ,f a b  ;f a  /f a
IPY_GET_IPYTHON = ipy_re.compile(
    r'''get_ipython\(\)\s*\.\s*(run_line_magic|run_cell_magic|magic)\s*\(\s*(['"])([^'"\\]*)\2'''
)


def ipython_transform(code):
    """code with IPython's syntax made Python, line for line, the cell
    magic that runs its body and the notes. Raises IPythonSyntaxRefused
    for the first line that does not run."""
    if (
        not any(c in code for c in '%!?')
        and not IPY_ESCAPE_LINE.search(code)
        and 'get_ipython' not in code
        and '>>>' not in code
        and 'In [' not in code
    ):
        return code, '', []  # no IPython syntax: nothing to tokenize
    t = IPyTransform()
    try:
        src, magic = t.cell(code)
    except IPyRefusal as r:
        raise IPythonSyntaxRefused('line %d: %s: %s' % (r.lineno, r.line[:80], r.why))
    return src, magic, t.notes


def check_cells(cells):
    """What quarry would refuse in these cells (each {'cell': N, 'code':
    ...}), before any runs: one {'cell', 'line', 'text', 'why'} a line."""
    out = []
    for c in cells:
        t = IPyTransform(check=True)
        try:
            t.cell(ipy_automagic(c.get('code') or '', {}))
        except Exception:
            continue  # what does not parse fails as itself when it runs
        for r in t.refusals:
            out.append({'cell': c.get('cell'), 'line': r.lineno, 'text': r.line[:200], 'why': r.why})
    return out
