# quarry's Python kernel. The host sends this source (after the other parts
# pykernel/parts.txt lists, as one program) over the container's
# stdin right after start
# (see bootstrap in kernel_conn.go), so changing it needs no image rebuild.
# It runs with two globals set by the bootstrap:
#   QIN  - buffered binary reader on the private protocol input (host -> kernel,
#          one JSON object per line)
#   QOUT - private fd for frames to the host (4-byte big-endian length + JSON)
# fd 0 is /dev/null; fds 1 and 2 become pipes that kernel threads drain, so
# code writing straight to them (os.system, C extensions) cannot corrupt
# the protocol.
import ast
import builtins
import json
import linecache
import os
import queue
import signal
import struct
import sys
import threading
import time
import traceback
import types

_send_lock = threading.Lock()


def send(obj):
    data = json.dumps(obj, ensure_ascii=True, default=str).encode('ascii')
    frame = struct.pack('>I', len(data)) + data
    with _send_lock:
        view = memoryview(frame)
        while view:
            n = os.write(QOUT, view)
            view = view[n:]


class State:
    cell = None  # id of the running cell, None between cells
    running = False  # user code is executing (SIGINT raises only then)
    interrupted = False  # the host interrupted the running cell
    main_ident = threading.main_thread().ident


state = State()


out_cap, err_cap = Cap('stdout'), Cap('stderr')


def flusher():
    while True:
        time.sleep(0.05)
        for c in (out_cap, err_cap):
            with c.lock:
                if c.pending and time.monotonic() - c.last_flush > FLUSH_SECS:
                    c.flush()


def on_sigint(signum, frame):
    if state.running:
        raise KeyboardInterrupt


# ---- the user's namespace ------------------------------------------------

main_mod = types.ModuleType('__main__')
main_mod.__dict__['__builtins__'] = builtins
user_ns = main_mod.__dict__


def cell_name(cid):
    return '<cell-%s>' % cid


def execute(code, cid):
    """Runs code like IPython: the value of a final expression is returned."""
    name = cell_name(cid)
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name, 'exec')
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not code.rstrip().endswith(';'):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, name, 'exec'), user_ns)
    if last is not None:
        value = eval(compile(last, name, 'eval'), user_ns)
        if value is not None:
            user_ns['_'] = value
        return value
    return None


def error_of(exc):
    tb = exc.__traceback__
    frames = [f for f in traceback.extract_tb(tb) if f.filename != '<quarry-kernel>']
    keep = [f for f in frames if f.filename.startswith('<cell-')]
    # The innermost library frame says where it failed; keep just that one.
    if keep and not frames[-1].filename.startswith('<cell-'):
        keep.append(frames[-1])
    lines = traceback.format_list(keep)
    lines += traceback.format_exception_only(type(exc), exc)
    text = ''.join(lines)
    if len(text) > 8000:
        text = text[:2000] + '\n...\n' + text[-6000:]
    msg = str(exc)
    if isinstance(exc, SyntaxError):
        msg = ''.join(traceback.format_exception_only(type(exc), exc)).strip()
    return {'type': type(exc).__name__, 'message': msg[:4000], 'traceback': text, 'needs': needs_of(exc)}


def needs_of(exc):
    """What a failed cell lacked that a package may provide, for the host
    to offer it: the top-level module an import did not find, here or in a
    library the cell called (pandas raises ImportError from the
    ModuleNotFoundError), or the names a %pip, %conda or !apt line asked
    for (ipython/syntax.py raises PackageRequest, an ImportError with packages and
    via)."""
    e, depth = exc, 0
    while e is not None and depth < 8:
        if type(e).__name__ == 'PackageRequest' and isinstance(e, ImportError):
            names = [str(p)[:200] for p in list(getattr(e, 'packages', None) or [])[:20]]
            return {'packages': names, 'via': str(getattr(e, 'via', '') or '')[:10]}
        if isinstance(e, ModuleNotFoundError) and isinstance(e.name, str) and e.name:
            return {'modules': [e.name.split('.')[0][:200]]}
        # A cause always; what was being handled only for an ImportError,
        # so a later, unrelated error does not inherit a handled import.
        e = e.__cause__ if e.__cause__ is not None else (e.__context__ if isinstance(e, ImportError) else None)
        depth += 1
    return None


def imports_for_cell(cid, code):
    """Waits for the background imports the cell needs (imports.py) before
    it: the host interrupts the wait as it would the cell, and what the
    imports print is not the cell's output (its streams are not open yet).
    Returns the cell's notes and, when it was interrupted, its error."""
    state.cell = cid
    try:
        state.running = True
        try:
            imports_for_code(user_ns, code)
            return [], None
        finally:
            state.running = False
    except KeyboardInterrupt as e:
        return [], error_of(e)


def run_cell(msg):
    cid = msg['id']
    code = msg['code']
    num = msg.get('cell') or cid  # the user's cell number names the code in tracebacks
    quiet = bool(msg.get('quiet'))  # a replay: the host has the figures and files already
    signal.signal(signal.SIGINT, on_sigint)
    drop_start_snapshot()  # checkpoint.py: the cell changes the state that copy holds
    notes, err = imports_for_cell(cid, code)
    if err is None:
        notes += cluster_before_cell(
            code, lambda done, total: send({'t': 'progress', 'id': cid, 'done': done, 'total': total})
        )
    if err is None:
        send({'t': 'running', 'id': cid})  # the host's clock for the cell starts now
    out_cap.reset(cid)
    err_cap.reset(cid)
    try:
        before = {} if quiet else scan_output()
    except Exception:
        before = {}
    sys.stdout, sys.stderr = out_stream, err_stream  # a previous cell may have swapped them
    value = None
    t0 = time.monotonic()
    state.cell = cid
    if err is None:
        try:
            state.running = True
            try:
                value = ipython_execute(code, num, execute)  # ipython/syntax.py
            finally:
                state.running = False
        except BaseException as e:  # SystemExit and KeyboardInterrupt included
            state.running = False
            err = error_of(e)
    duration = time.monotonic() - t0
    notes += ipython_notes()
    notes += import_notes()  # imports.py: an import that failed, once
    interrupted = state.interrupted or (err is not None and err.get('type') == 'KeyboardInterrupt')
    notes += cluster_after_cell(interrupted)  # cluster/client.py: a stopped cell's tasks end on the cluster too
    if state.interrupted:
        state.interrupted = False
        n = kill_others()
        if n:
            notes.append('stopped %d background process%s the cell had started' % (n, '' if n == 1 else 'es'))
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    for d in drains:
        d.sync()
    rendered, figs, inline, files = None, [], [], []
    report = report_of_cell(keep=not quiet and err is None)  # report/capture.py, before the figures close
    if quiet:
        close_figures()
    else:
        try:
            rendered = value_of(value)
        except BaseException as e:
            notes.append('the value could not be shown: %s' % e)
        try:
            figs, inline, fnotes = figures(msg.get('inline'))
            notes += fnotes
        except BaseException as e:
            notes.append('figures could not be saved: %s' % e)
        try:
            files, nfiles = changed_files(before)
            if nfiles > len(files):
                notes.append('%d files changed in /output; only %d reported' % (nfiles, len(files)))
        except Exception:
            files = []
    dropped_out = out_cap.finish()
    dropped_err = err_cap.finish()
    state.cell = None
    send(
        {
            't': 'result',
            'id': cid,
            'value': rendered,
            'error': err,
            'figures': figs,
            'inline': inline,
            'files': files,
            'dropped': dropped_out + dropped_err,
            'notes': notes,
            'seconds': duration,
            'report': report,
        }
    )


def run_profile(msg):
    signal.signal(signal.SIGINT, on_sigint)
    state.cell = msg['id']
    try:
        state.running = True
        try:
            wait_tabular()
            send({'t': 'running', 'id': msg['id']})
            prof = profile_mod.profile(msg['path'], msg.get('limits'), msg.get('kind'))
        finally:
            state.running = False
    except KeyboardInterrupt:
        prof = {'error': 'profiling interrupted'}
    except BaseException as e:
        prof = {'error': '%s: %s' % (type(e).__name__, str(e)[:500])}
    state.cell = None
    send({'t': 'profile', 'id': msg['id'], 'profile': prof})


def reader(f, q):
    for line in f:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get('op') in ('db_chunk', 'db_done'):
            db_reply(msg, f)  # sql(db=): the main thread waits for it
            continue
        if msg.get('op') == 'kind_done':
            kind_reply(msg)  # kind.py: the main thread waits for it
            continue
        if msg.get('op') == 'interrupt':
            if state.running and msg.get('id') == state.cell:
                state.interrupted = True
                signal.pthread_kill(state.main_ident, signal.SIGINT)
            continue
        q.put(msg)
    os._exit(0)  # the host went away: nothing left to serve


class Runtime:
    q = None  # requests from the reader thread


rt = Runtime()


def start_runtime(f, restored=False):
    """Starts the kernel's threads: at start, and again in a snapshot that
    becomes the kernel (a fork keeps only the forking thread). f reads the
    protocol; a restored kernel gets a new one, since the old reader's lock
    was held by a thread that no longer exists."""
    state.main_ident = threading.get_ident()
    state.cell, state.running, state.interrupted = None, False, False
    if restored:
        for d in drains:
            d.start()
    threading.Thread(target=flusher, daemon=True).start()
    rt.q = queue.Queue()
    threading.Thread(target=reader, args=(f, rt.q), daemon=True).start()


def main():
    global drains, profile_mod
    supervise()
    sys.path[:] = [p for p in sys.path if p not in ('', '.', os.getcwd())]
    drains = [FdDrain(1, out_cap), FdDrain(2, err_cap)]
    global out_stream, err_stream
    out_stream = sys.stdout = CapStream(out_cap, 1)
    err_stream = sys.stderr = CapStream(err_cap, 2)
    signal.signal(signal.SIGINT, on_sigint)
    os.register_at_fork(after_in_child=cluster_forget_in_child)  # a checkpoint's copy leaves the cluster to the kernel
    sys.modules['__main__'] = main_mod
    user_ns.update(
        sql=sql,
        DuckDBError=DuckDBError,
        DatabaseError=DatabaseError,
        variance=variance,
        bridge=bridge,
        pvm=pvm,
        explain=explain,
    )
    import warnings

    warnings.filterwarnings('ignore', message='.*non-interactive.*')
    install_reported(user_ns)  # report/capture.py: variance() and bridge() remembered for the report
    profile_mod = types.ModuleType('quarry_profile')
    exec(compile(PROFILE_SRC, '<quarry-profile>', 'exec'), profile_mod.__dict__)
    start_runtime(QIN)
    ready = {'t': 'ready', 'python': sys.version.split()[0], 'readers': sorted(profile_mod.READERS)}
    t0 = time.monotonic()
    if EAGER_IMPORTS:
        start_imports(True)  # imports.py
        wait_imports(user_ns)
        ready.update(imports.versions)
        if imports.errors:
            ready['warning'] = '; '.join(imports.errors)
    ready['import_seconds'] = round(time.monotonic() - t0, 3)
    send(ready)
    if not EAGER_IMPORTS:
        start_imports(False)  # imports.py: in the background, after the start's snapshot
    while True:
        msg = rt.q.get()  # rt.q is new after a restore
        operation_begins()
        try:
            op = msg.get('op')
            if op == 'exec':
                run_cell(msg)
            elif op == 'profile':
                run_profile(msg)
            elif op == 'checkpoint':
                run_checkpoint(msg)
            elif op == 'restore':
                run_restore(msg)
            elif op == 'drop':
                drop_checkpoints(msg)
            elif op == 'dask':  # cluster/client.py: the host connected a Dask cluster
                cluster_request(msg)
            elif op == 'dask_data':  # cluster/client.py: --dask-data's datasets, profiled on the cluster
                cluster_data_request(msg)
            elif op == 'check':  # ipython/syntax.py: what a rerun would refuse, before any cell runs
                send({'t': 'checked', 'id': msg.get('id'), 'refusals': check_cells(msg.get('cells') or [])})
        except KeyboardInterrupt:
            # A late interrupt hit kernel code between cells: the host gets a
            # result anyway so it never waits on a lost reply.
            state.running = False
            send({'t': 'result', 'id': msg.get('id'), 'error': {'type': 'KeyboardInterrupt', 'message': ''}})
        finally:
            operation_ends()


main()
