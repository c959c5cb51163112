# The libraries cells find imported (np, pd, plt, matplotlib, pyreadstat),
# for quarry's kernel (sent with kernel.py, before it).
#
# They take most of a start (pandas and pyplot above all), and nothing
# needs them before the first file is profiled or the first cell runs,
# which comes after the model's first reply. So the kernel says ready first
# and imports them in a thread; an operation that needs them waits: a
# profile for numpy and pandas, a cell and a checkpoint for all of them.
# Python's module locks make another thread's `import pandas` wait for the
# module to be complete; the waits below cover what `sys.modules` lookups
# (figures, tables) and the names in the user's namespace would otherwise
# see half made.
#
# A fork while the thread imports would copy its held import and loader
# locks into a child with no thread to release them: checkpoints wait for
# the thread to finish (wait_imports) before they fork, and user code, the
# only other forker, runs after that wait too.
#
# EAGER_IMPORTS (set by the host, QUARRY_KERNEL_IMPORTS=eager) imports
# everything before ready, in the main thread, as quarry did before: the
# benchmarks' baseline. IMPORTS_DELAY (tests) holds the thread back first.
import threading
import time


IDLE_SECS = 0.2  # the kernel is idle this long: matplotlib's turn


class Imports:
    def __init__(self):
        self.tabular = threading.Event()  # numpy and pandas are in (or failed)
        self.done = threading.Event()     # everything is in (or failed)
        self.wanted = threading.Event()   # an operation waits for everything
        self.busy = 0                     # operations running in the main thread
        self.idle_since = time.monotonic()
        self.names = {}     # name -> module, for the user's namespace
        self.versions = {}  # for the ready frame when imported before it
        self.errors = []
        self.installed = False  # the names were put in the namespace once
        self.reported = False   # the errors went to a cell's notes once
        self.thread = None


imports = Imports()


def import_libraries():
    im = imports
    if IMPORTS_DELAY > 0:  # tests: the imports are still to come
        time.sleep(IMPORTS_DELAY)
    try:
        import numpy as np
        import pandas as pd
        pandas_as_jupyter(pd)  # values.py
        im.names.update(np=np, pd=pd)
        im.versions.update(pandas=pd.__version__, numpy=np.__version__)
    except BaseException as e:
        im.errors.append('import failed: %s' % e)
    finally:
        im.tabular.set()
    # The rest waits while the kernel profiles files: two threads taking
    # turns on the GIL slow the profile that the model's first request
    # waits for more than they gain.
    while not im.wanted.wait(0.02):
        if not im.busy and time.monotonic() - im.idle_since >= IDLE_SECS:
            break
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        plt.show = lambda *a, **k: None  # figures are collected at cell end
        im.names.update(plt=plt, matplotlib=matplotlib)
        im.versions['matplotlib'] = matplotlib.__version__
    except BaseException as e:
        im.errors.append('import failed: %s' % e)
    try:
        import pyreadstat  # the profile's read call for SAS and SPSS portable files
        im.names['pyreadstat'] = pyreadstat
    except BaseException:
        pass
    im.done.set()


def start_imports(eager):
    if eager:
        imports.wanted.set()  # all at once, as before
        import_libraries()
    else:
        imports.thread = threading.Thread(target=import_libraries, name='quarry-imports', daemon=True)
        imports.thread.start()


def wait_tabular():
    imports.tabular.wait()


def operation_begins():
    imports.busy += 1


def operation_ends():
    imports.busy -= 1
    imports.idle_since = time.monotonic()


def wait_imports(ns):
    """Waits for every import, then puts the names into ns the first time
    (a cell may rebind pd later). Returns notes for the cell: an import that
    failed, once."""
    im = imports
    im.wanted.set()
    im.done.wait()
    if im.thread is not None:
        im.thread.join()  # gone, not only done: nothing of it is left to fork
    if not im.installed:
        ns.update(im.names)
        im.installed = True
    if im.errors and not im.reported:
        im.reported = True
        return list(im.errors)
    return []
