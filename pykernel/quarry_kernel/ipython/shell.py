# Shell lines for quarry's kernel (sent together with kernel.py, before
# ipython/syntax.py): !cmd, x = !cmd, %sx, %system and the script cell magics
# (%%bash, %%sh, %%script ...), run as IPython runs them, in the sandbox:
# as its user, in the working folder, under the container's limits, with
# no network. $name and {expr} are expanded by IPython's own rules
# (DollarFormatter). !cmd runs under a pseudo-terminal of 24x80, as
# IPython's pexpect does, so ls lays out its columns and stderr joins
# stdout; x = !cmd and %sx read a pipe, stderr joined; a script magic's
# stdout and stderr stay apart. Each runs in a process group of its own:
# an interrupt (Ctrl+C, the cell's time limit) kills the group and stops
# the cell. pip, conda and apt raise PackageRequest (ipython/packages.py).
import codecs as ipy_codecs
import os
import re as ipy_re
import shlex as ipy_shlex
import signal
import string as ipy_string
import subprocess as ipy_subprocess
import sys
import sys as ipy_sys
import threading as ipy_threading

# The window IPython's pexpect gives a !command.
IPY_PTY_ROWS, IPY_PTY_COLS = 24, 80


# ---- $name and {expr}: IPython's DollarFormatter (IPython/utils/text.py) ----


class IPyDollarFormatter(ipy_string.Formatter):
    """{expr} is evaluated in the user's namespace, $name and $name.attr are
    looked up there, $$ is a literal $; a $ inside single quotes stays."""

    dollar = ipy_re.compile(r"(.*?)\$(\$?[\w\.]+)(?=([^']*'[^']*')*[^']*$)")

    def vformat(self, format_string, args, kwargs):
        result = []
        for literal, field, spec, conversion in self.parse(format_string):
            if literal:
                result.append(literal)
            if field is not None:
                if spec:
                    field = ':'.join([field, spec])  # slicing, not a format spec
                obj = eval(field, dict(kwargs))
                obj = self.convert_field(obj, conversion)
                result.append(self.format_field(obj, ''))
        return ''.join(result)

    def parse(self, fmt):
        for literal, field, spec, conversion in ipy_string.Formatter.parse(self, fmt):
            start, txt = 0, ''
            for m in self.dollar.finditer(literal):
                new_txt, new_field = m.group(1, 2)
                if new_field.startswith('$'):  # $$name: $name
                    txt += new_txt + new_field
                else:
                    yield txt + new_txt, new_field, '', None
                    txt = ''
                start = m.end()
            yield txt + literal[start:], field, spec, conversion


ipy_dollar = IPyDollarFormatter()


def ipy_var_expand(cmd, frame):
    """cmd with the user's variables expanded, as IPython's var_expand: the
    user's namespace and the calling frame's locals; left as it is when it
    does not format."""
    ns = dict(ipy_sys.modules['__main__'].__dict__)
    if frame is not None:
        ns.update(frame.f_locals)
    try:
        return ipy_dollar.vformat(cmd, args=[], kwargs=ns)
    except Exception:
        return cmd


# ---- what x = !cmd gives: IPython's SList (and LSString) ------------------


class SList(list):
    """A list of lines with .l (the list), .n (joined on newlines), .s
    (joined on spaces), .p (the paths that exist), grep, fields and sort."""

    l = list = property(lambda self: self)
    n = nlstr = property(lambda self: '\n'.join(self))
    s = spstr = property(lambda self: ' '.join(self))

    @property
    def p(self):
        import pathlib

        return [pathlib.Path(x) for x in self if os.path.exists(x)]

    paths = p

    def grep(self, pattern, prune=False, field=None):
        def target(s):
            if field is None:
                return s
            parts = s.split()
            try:
                return parts[field]
            except IndexError:
                return ''

        pred = (lambda x: ipy_re.search(pattern, x, ipy_re.IGNORECASE)) if isinstance(pattern, str) else pattern
        return type(self)([el for el in self if bool(pred(target(el))) != bool(prune)])

    def fields(self, *fields):
        if not fields:
            return [el.split() for el in self]
        res = SList()
        for el in [f.split() for f in self]:
            parts = []
            for fd in fields:
                try:
                    parts.append(el[fd])
                except IndexError:
                    pass
            if parts:
                res.append(' '.join(parts))
        return res

    def sort(self, field=None, nums=False):
        dsu = [[SList([line]).fields(field) if field is not None else line, line] for line in self]
        if nums:
            for d in dsu:
                try:
                    d[0] = int(''.join(ch for ch in d[0] if ch.isdigit()))
                except ValueError:
                    d[0] = 0
        dsu.sort()
        return type(self)([t[1] for t in dsu])


class LSString(str):
    """A string with .l (its lines), .n (itself), .s (lines joined on spaces)."""

    l = list = property(lambda self: self.split('\n'))
    n = nlstr = property(lambda self: self)
    s = spstr = property(lambda self: self.replace('\n', ' '))


# ---- running them ----------------------------------------------------------


def ipy_shell():
    return os.environ.get('SHELL') or '/bin/bash'


def ipy_shell_env():
    """The environment of a shell line: the kernel's, with what ipykernel
    sets for its children (no pager, a terminal that takes colour)."""
    env = dict(os.environ)
    env.update(TERM='xterm-color', CLICOLOR='1', PAGER='cat', GIT_PAGER='cat')
    env.setdefault('SHELL', ipy_shell())
    return env


def ipy_kill_group(p):
    """Kills p's process group (it leads one) and reaps p."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        p.wait(timeout=5)
    except Exception:
        pass


def ipy_background(cmd):
    if cmd.rstrip().endswith('&'):
        raise OSError('Background processes not supported.')


class IPyCRLF:
    """The terminal's \\r\\n as \\n, also when a chunk ends between them."""

    def __init__(self):
        self.cr = False

    def text(self, s):
        if self.cr:
            s = '\r' + s
        self.cr = s.endswith('\r')
        if self.cr:
            s = s[:-1]
        return s.replace('\r\n', '\n')

    def end(self):
        return '\r' if self.cr else ''


def ipy_terminal():
    """A pseudo-terminal of IPython's size, as (master, slave); a pipe where
    the engine gives none (the output then comes as from x = !cmd)."""
    import fcntl
    import struct
    import termios

    try:
        master, slave = os.openpty()
    except OSError:
        return os.pipe()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', IPY_PTY_ROWS, IPY_PTY_COLS, 0, 0))
    except OSError:
        pass
    return master, slave


def ipy_system(cmd, frame, line):
    """!cmd: the command in the shell under a pseudo-terminal, its output
    printed as it comes; the status in _exit_code (a signal as its negative
    number) and, when not 0, a note."""
    ipy_background(cmd)
    cmd = ipy_var_expand(cmd, frame)
    ipy_package_request(cmd, line)
    master, slave = ipy_terminal()
    try:
        p = ipy_subprocess.Popen(
            [ipy_shell(), '-c', cmd],
            stdin=ipy_subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            env=ipy_shell_env(),
            close_fds=True,
        )
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    os.close(slave)
    decoder, crlf = ipy_codecs.getincrementaldecoder('utf-8')('replace'), IPyCRLF()
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: no process holds the terminal any more
                data = b''
            if not data:
                break
            sys.stdout.write(crlf.text(decoder.decode(data)))
        sys.stdout.write(crlf.text(decoder.decode(b'', True)) + crlf.end())
        status = p.wait()
    except BaseException:
        ipy_kill_group(p)
        raise
    finally:
        os.close(master)
    code = status  # Popen's -N for signal N, as IPython's
    if code > 128:
        code = -(code - 128)  # the shell's 128+N for a child killed by signal N
    ipy_sys.modules['__main__'].__dict__['_exit_code'] = code
    if code != 0:
        IPythonRuntime.notes.append('line %d: %s exited with status %d' % (ipy_lineno(frame), line.strip()[:80], code))


def ipy_getoutput(cmd, frame, line, split=True):
    """x = !cmd, %sx: the command's output, stderr joined, as an SList of
    its lines (an LSString with split False)."""
    ipy_background(cmd)
    cmd = ipy_var_expand(cmd, frame)
    ipy_package_request(cmd, line)
    p = ipy_subprocess.Popen(
        cmd,
        shell=True,
        executable=ipy_shell(),
        stdin=ipy_subprocess.DEVNULL,
        stdout=ipy_subprocess.PIPE,
        stderr=ipy_subprocess.STDOUT,
        start_new_session=True,
        env=ipy_shell_env(),
        close_fds=True,
    )
    try:
        out, _ = p.communicate()
    except BaseException:
        ipy_kill_group(p)
        raise
    if p.returncode:
        IPythonRuntime.notes.append(
            'line %d: %s exited with status %d' % (ipy_lineno(frame), line.strip()[:80], p.returncode)
        )
    text = out.decode('utf-8', 'replace')
    return SList(text.splitlines()) if split else LSString(text)


def ipy_lineno(frame):
    return frame.f_lineno if frame is not None else 0


class IPyScriptArgs:
    """The options of IPython's script magics; the rest is the program."""

    def __init__(self, line):
        import argparse

        parser = argparse.ArgumentParser(prog='%%script', add_help=False, exit_on_error=False)
        parser.add_argument('--out')
        parser.add_argument('--err')
        parser.add_argument('--bg', action='store_true')
        parser.add_argument('--proc')
        parser.add_argument('--no-raise-error', action='store_false', dest='raise_error')
        try:
            words = ipy_shlex.split(line)
        except ValueError as e:
            raise ValueError('%%%%script %s: %s' % (line, e))
        try:
            args, self.cmd = parser.parse_known_args(words)
        except argparse.ArgumentError as e:
            raise ValueError('%%%%script %s: %s' % (line, e))
        self.out, self.err, self.bg, self.raise_error = args.out, args.err, args.bg, args.raise_error


def ipy_script(line, cell):
    """%%script PROGRAM (and %%bash, %%sh, %%perl ...): the cell is the
    program's standard input; its stdout and stderr are printed as they
    come (or kept in --out/--err variables); a status other than 0 raises
    CalledProcessError unless --no-raise-error."""
    args = IPyScriptArgs(line)
    ns = ipy_sys.modules['__main__'].__dict__
    if args.bg:
        raise ValueError('%%script --bg: quarry runs no script in the background: leave --bg out')
    if not args.cmd:
        raise ValueError('%%script: name the program to run, e.g. %%script bash')
    if args.cmd[0].rsplit('/', 1)[-1] in ('sh', 'bash', 'dash', 'zsh'):
        ipy_package_request(cell, '%%' + args.cmd[0] + ': ' + cell)
    for name in (args.out, args.err):
        if name:
            ns[name] = ''
    try:
        p = ipy_subprocess.Popen(
            args.cmd,
            stdin=ipy_subprocess.PIPE,
            stdout=ipy_subprocess.PIPE,
            stderr=ipy_subprocess.PIPE,
            start_new_session=True,
            env=ipy_shell_env(),
            close_fds=True,
        )
    except FileNotFoundError:
        print("Couldn't find program: %r" % args.cmd[0])
        return
    if not cell.endswith('\n'):
        cell += '\n'
    body = cell.encode('utf8', 'replace')

    def feed():
        try:
            p.stdin.write(body)
            p.stdin.close()
        except OSError:
            pass

    def pump(stream, name, to):
        dec = ipy_codecs.getincrementaldecoder('utf-8')('replace')
        for chunk in iter(lambda: stream.read1(65536), b''):
            text = dec.decode(chunk)
            if name:
                ns[name] = ns.get(name, '') + text
            else:
                to.write(text)
        text = dec.decode(b'', True)
        if text:
            if name:
                ns[name] = ns.get(name, '') + text
            else:
                to.write(text)

    threads = [
        ipy_threading.Thread(target=feed, daemon=True),
        ipy_threading.Thread(target=pump, args=(p.stdout, args.out, sys.stdout), daemon=True),
        ipy_threading.Thread(target=pump, args=(p.stderr, args.err, sys.stderr), daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        for t in threads[1:]:
            while t.is_alive():
                t.join(0.05)
        p.wait()
    except BaseException:
        ipy_kill_group(p)
        raise
    if args.raise_error and p.returncode != 0:
        raise ipy_subprocess.CalledProcessError(p.returncode, body)


def ipy_sx_cell(line, cell):
    """%%sx and %%system: the cell's output as an SList (or into --out NAME)."""
    out = ipy_getoutput(cell, None, '%%sx')
    words = line.split()
    for i, w in enumerate(words):
        if w in ('--out', '-o') and i + 1 < len(words):
            ipy_sys.modules['__main__'].__dict__[words[i + 1]] = out
            return None
    return out
