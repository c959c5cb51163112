# Checkpoints for quarry's kernel (sent with kernel.py, before it): undo
# returns the kernel to the state it had at a question's start without
# running anything again.
#
# A checkpoint is a fork of the kernel taken between cells: the child (the
# snapshot) holds the whole Python heap copy-on-write and blocks on its own
# wake pipe; only the forking thread exists in it, so no kernel thread is
# copied mid-work. A restore wakes the snapshot and the kernel leaves: the
# snapshot becomes the kernel, starts its threads again and reads the
# protocol on a new reader. The supervisor (supervisor.py) revives a
# snapshot when the kernel dies.
import ctypes
import io
import os
import signal
import time

# The OOM killer takes older snapshots first, then the newest (unless it
# holds little of its own: its score is its size plus half the limit), and
# the kernel last.
SNAPSHOT_OOM_ADJ, NEWEST_OOM_ADJ = 1000, 500
SQL_KEEP = 16 << 20  # the SQL database is kept in a snapshot up to this size
HANDOFF_SECS = 10  # a kernel that left must have a successor by then


class Checkpoints:
    sup = None  # the supervisor's pid
    ctl = None  # write end of the supervisor's control pipe
    snaps = {}  # type: dict[int, tuple[int, int]]  # checkpoint id -> (pid, write end of its wake pipe); the active kernel's view
    output = None  # in a snapshot: /output as it was
    sqlfiles = None  # in a snapshot: the SQL database's files as they were
    wake = None  # in a snapshot: the write end of its own wake pipe, for a kernel it forks
    start = None  # (pid, wake write end, ack read end): the start's copy, while no cell ran


class _Revive(Exception):
    """SIGUSR1 in a snapshot: the kernel died; fork a new one from here."""


def _on_revive(signum, frame):
    raise _Revive


ck = Checkpoints()


def _set_oom_adj(pid, value):
    try:
        with open('/proc/%s/oom_score_adj' % pid, 'w') as f:
            f.write(str(value))
    except OSError:
        pass


def _pause_openmp():
    # libgomp keeps its worker threads across parallel regions and has no
    # fork handler: a fork's child that runs OpenMP again (sklearn, scipy)
    # waits for workers that do not exist. Pausing frees them; the next
    # parallel region starts new ones.
    try:
        gomp = ctypes.CDLL('libgomp.so.1', mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return
    try:
        gomp.omp_pause_resource_all(2)  # omp_pause_hard
    except AttributeError:
        pass


def output_listing():
    dirs = set()
    return scan_output(dirs), dirs


def _sql_files():
    """The SQL database (views and macros) as bytes, or None when it is too
    big to keep in a snapshot."""
    kept = {}
    for p in (SQL_DB, SQL_DB + '.wal'):
        try:
            if os.path.getsize(p) > SQL_KEEP:
                return None
            with open(p, 'rb') as f:
                kept[p] = f.read()
        except OSError:
            kept[p] = None  # absent: absent again after a restore
    return kept


def kernel_locks():
    return [_send_lock, out_cap.lock, err_cap.lock] + [d.lock for d in drains]


def _fork():
    """os.fork() with no kernel thread holding a kernel lock across it and
    SIGUSR1 blocked, until the snapshot has its handler (the supervisor may
    signal it as soon as it is named); the parent unblocks it."""
    locks = kernel_locks()
    for l in locks:
        l.acquire()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)  # "multi-threaded, use of fork()"
            pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
        raise
    finally:
        for l in locks:
            l.release()
    if pid != 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    return pid


def run_checkpoint(msg):
    """Forks a snapshot of the kernel. In the snapshot this returns only
    when a restore woke it, with the kernel running again."""
    if claim_start_snapshot(msg):
        return
    cid = msg['id']
    wait_imports(user_ns)  # never fork while the import thread holds import locks
    send({'t': 'running', 'id': cid})
    t0 = time.monotonic()
    seq = int(msg['seq'])
    _prune()
    listing = output_listing()
    sqlfiles = _sql_files()
    _pause_openmp()
    r, w = os.pipe()
    try:
        pid = _fork()
    except OSError as e:
        os.close(r)
        os.close(w)
        os.write(ck.ctl, b'N 0\n')  # no snapshot of this question to come back to
        send({'t': 'checkpoint', 'id': cid, 'error': {'type': type(e).__name__, 'message': 'fork: %s' % e}})
        return
    if pid == 0:
        ck.output, ck.sqlfiles, ck.wake = listing, sqlfiles, w
        _snapshot(r, seq)
        return
    os.close(r)
    del listing, sqlfiles
    _keep(cid, seq, pid, w, t0)


def _keep(cid, seq, pid, w, t0):
    """The snapshot pid is the question's: the OOM scores, the supervisor
    and the host hear of it."""
    # Set here, before the host hears of it (the child may not have run yet).
    for older, _ in ck.snaps.values():
        _set_oom_adj(older, SNAPSHOT_OOM_ADJ)
    _set_oom_adj(pid, NEWEST_OOM_ADJ)
    ck.snaps[seq] = (pid, w)
    os.write(ck.ctl, b'N %d\n' % pid)
    send({'t': 'checkpoint', 'id': cid, 'seconds': time.monotonic() - t0, 'alive': sorted(ck.snaps)})


def _prune():
    """Forgets snapshots that died (the OOM killer takes them first)."""
    for s in list(ck.snaps):
        pid, w = ck.snaps[s]
        if not alive(pid):
            _reap(pid)
            del ck.snaps[s]
            os.close(w)


def _reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # not ours: the supervisor reaps it


def _snapshot(r, seq):
    signal.signal(signal.SIGUSR1, _on_revive)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    buf = b''
    while True:
        try:
            data = os.read(r, 256)
        except InterruptedError:
            continue
        except _Revive:
            if _revive(r, seq):
                return  # this is the new kernel
            continue
        if not data:
            os._exit(0)  # nobody can wake it any more
        buf += data
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            parts = line.split()
            if len(parts) == 3 and parts[0] == b'W' and parts[1].isdigit() and parts[2].isdigit():
                os.close(r)
                _resume(int(parts[1]), int(parts[2]), seq)
                return


def _revive(r, seq):
    """Forks a kernel from this snapshot, which stays one. Twice, so the
    kernel's parent exits and the supervisor adopts it (and sees its end).
    Returns True in the new kernel."""
    me = os.getpid()
    try:
        mid = os.fork()
    except OSError:
        return False
    if mid != 0:
        try:
            os.waitpid(mid, 0)
        except ChildProcessError:
            pass
        return False
    try:
        if os.fork() != 0:
            os._exit(0)
    except OSError:
        os._exit(1)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    os.close(r)  # a dead snapshot must fail the wake (EPIPE)
    ck.snaps[seq] = (me, ck.wake)
    ck.wake = None
    _set_oom_adj('self', 0)
    os.write(ck.ctl, b'A %d\nN %d\n' % (os.getpid(), me))
    # What the dead kernel started dies with it; the snapshots stay.
    kill_others()
    start_runtime(io.open(QIN.fileno(), 'rb', closefd=False), restored=True)
    send({'t': 'revived', 'id': 0, 'at': seq})
    return True


def _resume(cid, old, seq):
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # a kernel now, not a snapshot to revive
    _set_oom_adj('self', 0)  # the old kernel waits for this: the snapshot is alive and takes over
    # The old kernel may still be reading the protocol until it is gone.
    deadline = time.monotonic() + HANDOFF_SECS
    while alive(old) and time.monotonic() < deadline:
        time.sleep(0.001)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    if ck.wake is not None:
        os.close(ck.wake)
        ck.wake = None
    # The next question's checkpoint names the snapshot to come back to.
    os.write(ck.ctl, b'A %d\nN 0\n' % os.getpid())
    notes = []
    _restore_output(ck.output)
    ck.output = None
    if ck.sqlfiles is None:
        notes.append('the SQL database was too big to keep at the checkpoint; its views and tables stay as they are')
    else:
        _restore_sql(ck.sqlfiles)
    ck.sqlfiles = None
    start_runtime(io.open(QIN.fileno(), 'rb', closefd=False), restored=True)
    send({'t': 'restored', 'id': cid, 'at': seq, 'notes': notes})


def _restore_output(before):
    """Removes the files and folders made in /output since the checkpoint.
    Files changed since keep their new contents: the old were not kept."""
    then, then_dirs = before
    now, now_dirs = output_listing()
    for name in now:
        if name not in then:
            try:
                os.remove(os.path.join(OUTPUT, name))
            except OSError:
                pass
    for d in sorted(now_dirs - then_dirs, key=lambda d: -d.count('/')):
        try:
            os.rmdir(os.path.join(OUTPUT, d))
        except OSError:
            pass


def _restore_sql(files):
    for p, data in files.items():
        try:
            if data is None:
                os.unlink(p)
            else:
                with open(p, 'wb') as f:
                    f.write(data)
        except OSError:
            pass


def run_restore(msg):
    """Returns to the newest checkpoint at or before msg['seq'] that is still
    alive: wakes it and leaves. With none left it answers at=0 and stays."""
    cid, target = msg['id'], int(msg['seq'])
    keep = [s for s in ck.snaps if s <= target]
    for s in [s for s in ck.snaps if s > target]:
        pid, w = ck.snaps.pop(s)
        _kill(pid)
        os.close(w)
    spare = {pid for pid, _ in ck.snaps.values()}
    for s in sorted(keep, reverse=True):
        pid, w = ck.snaps[s]
        try:
            os.write(w, b'W %d %d\n' % (cid, os.getpid()))
            woke = _acked(pid)
        except OSError:  # EPIPE: that snapshot is gone (the OOM killer took it)
            woke = False
        if not woke:  # gone, or dying as it was woken
            del ck.snaps[s]
            os.close(w)
            _kill(pid)
            continue
        # Processes started since (by the cells being undone) go too.
        kill_others(spare)
        os.write(ck.ctl, b'L %d %d\n' % (os.getpid(), pid))
        os._exit(0)
    send({'t': 'restored', 'id': cid, 'at': 0})


def _acked(pid):
    """A woken snapshot answers by lowering its OOM score to the kernel's."""
    deadline = time.monotonic() + HANDOFF_SECS / 2
    while time.monotonic() < deadline and alive(pid):
        try:
            with open('/proc/%d/oom_score_adj' % pid) as f:
                if f.read().strip() == '0':
                    return True
        except OSError:
            return False
        time.sleep(0.001)
    return False


def drop_checkpoints(msg):
    """Ends the snapshots msg['seqs'] names (the host keeps fewer)."""
    for s in msg.get('seqs') or []:
        if s in ck.snaps:
            pid, w = ck.snaps.pop(s)
            _kill(pid)
            os.close(w)
    send({'t': 'dropped', 'id': msg['id'], 'alive': sorted(ck.snaps)})


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # not ours: the supervisor reaps it
