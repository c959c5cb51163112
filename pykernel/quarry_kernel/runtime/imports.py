# The libraries cells find imported (np, pd, plt, matplotlib, pyreadstat),
# for quarry's kernel (sent with kernel.py, before it).
#
# They take most of a start (pandas and pyplot above all), so the kernel
# says ready first and imports them in a thread, in LIBRARIES' order; what
# needs one waits for it, and nothing waits for more than it needs:
#
# - A cell waits before it starts (outside its time limit) for the
#   libraries its text names (a word of LIBRARY_WORDS: `pd`, `pandas`,
#   `plt`...), or for all of them when it imports a module not loaded yet
#   (that import may need theirs, and two threads importing the same
#   modules at once can meet half made ones). A cell naming none, `1` or
#   `sql(...)`, runs at once. The names go into the user's namespace at the
#   start of the first cell after their import.
# - Until every name is in, the namespace's __builtins__ is LazyNames: a
#   name looked up that no cell's text showed (exec of a string, a script
#   read from a file) waits for its import there, inside the cell.
# - A profile waits for numpy and pandas (it reads files with pandas).
# - A fork waits for the thread to end, as a fork during an import would
#   copy its held import and loader locks into a child with no thread to
#   release them: a checkpoint (wait_imports) and the user's own os.fork()
#   (the at-fork hook below). The question's first checkpoint is the
#   exception: checkpoint.py forked the kernel's start before the thread
#   began, and that copy stands for it while no cell has run.
# - What the kernel reads of sys.modules (tables, figures, IPython's
#   stand-ins) takes a module only once whole (whole_module): a module the
#   thread is still importing cannot be the cell's, whose own import would
#   have waited for it.
# - An import that failed is said once, in the notes of the first cell
#   that ends after it (import_notes).
#
# QUARRY_KERNEL_IMPORTS (read by the host) sets IMPORTS_MODE: 'eager'
# imports everything before ready, in the main thread; 'wait' makes every
# cell and checkpoint wait for all of them, as quarry did before cells
# waited per name (both are the benchmarks' baselines). IMPORTS_DELAY
# holds the thread back first, IMPORTS_BROKEN fails the imports it names
# and IMPORTS_SLOW keeps them half made a while (tests).
import builtins
import importlib
import importlib.util
import os
import re
import signal
import sys
import threading
import time

IDLE_SECS = 0.2  # the kernel is idle this long: matplotlib's turn


def _jupyter_pandas(pd):
    pandas_as_jupyter(pd)  # values.py


def _agg(matplotlib):
    matplotlib.use('Agg')  # a no-op when MPLBACKEND chose it already


def _quiet_show(plt):
    plt.show = lambda *a, **k: None  # figures are collected at cell end


class Library:
    """One name of the user's namespace, the module it is, and what is done
    with the module once imported."""

    def __init__(self, name, module, after=None, group=0, later=False, quiet=False):
        self.name, self.module, self.after = name, module, after
        self.group = group  # a failure skips the rest of its group
        self.later = later  # imported once the kernel is idle or someone waits for it
        self.quiet = quiet  # its failure is not reported
        self.done = threading.Event()  # imported, failed or skipped


# The names the user's namespace gets, in the order they are imported.
LIBRARIES = [
    Library('np', 'numpy', group=0),
    Library('pd', 'pandas', _jupyter_pandas, group=0),
    Library('matplotlib', 'matplotlib', _agg, group=1, later=True),
    Library('plt', 'matplotlib.pyplot', _quiet_show, group=1, later=True),
    Library(
        'pyreadstat', 'pyreadstat', group=2, later=True, quiet=True
    ),  # the profile's read call for SAS and SPSS portable files
]
VERSIONED = ('numpy', 'pandas', 'matplotlib')  # reported in the ready frame when eager


# Other words of a cell that use a library: IPython's magics that call it.
USES = {'precision': 'numpy'}  # %precision sets numpy's print options too (ipython/magics.py)


def _library_words():
    """Each word that makes a cell wait, and the last library it needs:
    the name and every part of the module's (`matplotlib` waits for
    pyplot too, since `matplotlib.pyplot` is only there after it)."""
    words = {}
    for i, lib in enumerate(LIBRARIES):
        for w in [lib.name] + lib.module.split('.'):
            words[w] = max(words.get(w, 0), i)
    for w, module in USES.items():
        words[w] = [lib.module for lib in LIBRARIES].index(module)
    return words


LIBRARY_WORDS = _library_words()
BY_NAME = {lib.name: lib for lib in LIBRARIES}
BY_MODULE = {lib.module: lib for lib in LIBRARIES}
DYNAMIC_IMPORT = ('__import__', 'import_module')  # words naming no module in the text
NAMED = re.compile(r'\b(%s)\b' % '|'.join(sorted(LIBRARY_WORDS) + list(DYNAMIC_IMPORT)))
IMPORTED = re.compile(r'\bfrom[ \t]+([\w.]+)[ \t]+import\b|\bimport[ \t]+([^\n;#]+)')


class Imports:
    def __init__(self):
        self.wanted = threading.Event()  # someone waits for a later library
        self.busy = 0  # operations running in the main thread
        self.idle_since = time.monotonic()
        self.names = {}  # name -> module, imported
        self.installed = set()  # names put in the user's namespace (a cell may rebind or delete them later)
        self.versions = {}  # for the ready frame when imported before it
        self.errors = []
        self.reported = 0  # how many of them went to a cell's notes
        self.thread = None


imports = Imports()


class _HalfMade:
    """Tests (IMPORTS_SLOW): the module stays in sys.modules half made, its
    import lock held, for a while before its code runs."""

    def __init__(self, name, secs):
        self.name, self.secs = name, secs

    def find_spec(self, name, path, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run, secs = spec.loader.exec_module, self.secs

        def slowly(module):
            time.sleep(secs)
            run(module)

        spec.loader.exec_module = slowly
        return spec


def _import(lib):
    if lib.module in IMPORTS_BROKEN:  # tests
        raise ImportError('No module named %r' % lib.module)
    if lib.module in IMPORTS_SLOW:  # tests
        sys.meta_path.insert(0, _HalfMade(lib.module, IMPORTS_SLOW[lib.module]))
    m = importlib.import_module(lib.module)
    if lib.after is not None:
        lib.after(m)
    return m


def import_libraries():
    im = imports
    if IMPORTS_DELAY > 0:  # tests: the imports are still to come
        time.sleep(IMPORTS_DELAY)
    failed = set()
    try:
        for lib in LIBRARIES:
            if lib.later:
                # Not while the kernel profiles files: two threads taking
                # turns on the GIL slow the profile that the model's first
                # request waits for more than they gain.
                while not im.wanted.wait(0.02):
                    if not im.busy and time.monotonic() - im.idle_since >= IDLE_SECS:
                        break
            try:
                if lib.group not in failed:
                    m = _import(lib)
                    im.names[lib.name] = m
                    if lib.module in VERSIONED:
                        im.versions[lib.module] = m.__version__
            except BaseException as e:
                failed.add(lib.group)
                if not lib.quiet:
                    im.errors.append('import failed: %s' % e)
            finally:
                lib.done.set()
    finally:
        for lib in LIBRARIES:  # nothing waits for ever
            lib.done.set()


def start_imports(eager):
    if eager:
        imports.wanted.set()  # all at once, as before
        import_libraries()
        imports.reported = len(imports.errors)  # the ready frame says them
        return
    if IMPORTS_MODE != 'wait':
        fork_start_snapshot()  # checkpoint.py; a kernel woken from that copy returns here too
    imports.thread = threading.Thread(target=import_libraries, name='quarry-imports', daemon=True)
    imports.thread.start()


def operation_begins():
    imports.busy += 1


def operation_ends():
    imports.busy -= 1
    imports.idle_since = time.monotonic()


def _wait_for(lib):
    if not lib.done.is_set():
        if lib.later:
            imports.wanted.set()
        lib.done.wait()


def wait_tabular():
    _wait_for(BY_NAME['pd'])


def wait_imports(ns):
    """Waits for every import and for the thread's end (nothing of it is
    left to fork), then puts the names into ns."""
    _wait_for(LIBRARIES[-1])
    if imports.thread is not None:
        imports.thread.join()
    _install(ns)


def imports_for_code(ns, code):
    """Before a cell: waits for the libraries its text names, or for all
    of them when it imports a module not loaded yet, then puts those
    imported into ns."""
    if IMPORTS_MODE == 'wait' or imports.thread is None:
        wait_imports(ns)
        return
    if not LIBRARIES[-1].done.is_set():
        need = _needed(code)
        if need >= 0:
            _wait_for(LIBRARIES[need])
    _install(ns)


def _needed(code):
    """The index of the last library the code's text needs; -1 for none."""
    last = len(LIBRARIES) - 1
    need = -1
    for w in set(NAMED.findall(code)):
        if w in DYNAMIC_IMPORT:
            return last
        need = max(need, LIBRARY_WORDS[w])
    if 'import' in code:
        for m in IMPORTED.finditer(code):
            names = (
                [m.group(1)]
                if m.group(1)
                else [p.split()[0] for p in m.group(2).strip('()\\ \t').split(',') if p.split()]
            )
            for name in names:
                top = name.split('.')[0]
                if top and top not in LIBRARY_WORDS and whole_module(top) is None:
                    return last
    return need


def _install(ns):
    """The names imported since the last call go into ns (main thread,
    between cells: the thread never changes a dict the code may be
    iterating); __builtins__ is LazyNames until all of them are in."""
    im = imports
    for name, m in list(im.names.items()):
        if name not in im.installed:
            im.installed.add(name)
            ns.setdefault(name, m)
    if LIBRARIES[-1].done.is_set():  # the last one is done last
        if isinstance(ns.get('__builtins__'), LazyNames):
            ns['__builtins__'] = builtins
    elif not isinstance(ns.get('__builtins__'), LazyNames):
        ns['__builtins__'] = LazyNames(builtins.__dict__)
    else:
        ns['__builtins__'].update(builtins.__dict__)  # what code put into builtins since


class LazyNames(dict):
    """The user's builtins while imports are pending: a library's name not
    in the namespace yet waits for its import; any other name is the
    builtins module's (this is a copy of its dict, kept up to date at each
    cell's start). Code run meanwhile, and functions defined by it, look
    their globals up the generic (slower) way."""

    __slots__ = ()

    def __missing__(self, key):
        lib = BY_NAME.get(key)
        if lib is not None and key not in imports.installed:  # once in, a del is the code's
            _wait_for(lib)
            if key in imports.names:
                return imports.names[key]
        return builtins.__dict__[key]

    def __getattr__(self, name):  # __builtins__.open, as with the module
        return getattr(builtins, name)


def whole_module(name):
    """sys.modules[name] once it is whole: None while it is being
    imported (by the thread: code's own import returns it whole)."""
    m = sys.modules.get(name)
    if m is not None and getattr(getattr(m, '__spec__', None), '_initializing', False):
        return None
    return m


def imported(module):
    """The module for code that needs it now (%precision's numpy): one of
    the thread's waits for its import; another only when it is whole."""
    lib = BY_MODULE.get(module)
    if lib is not None:
        _wait_for(lib)
    return whole_module(module)


def import_notes():
    """The imports that failed since the last call, for a cell's notes:
    each is said once."""
    im = imports
    new = im.errors[im.reported :]
    im.reported += len(new)
    return new


def _before_fork():
    """os.fork() in the user's code waits for the thread's end; an
    interrupt meanwhile comes once the fork is done (an exception here
    would only be printed)."""
    t = imports.thread
    if t is None or t is threading.current_thread() or not t.is_alive():
        return
    imports.wanted.set()
    interrupted = False
    while t.is_alive():
        try:
            t.join()
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)


os.register_at_fork(before=_before_fork)
