# Checkpoints for quarry's kernel (sent with kernel.py, before it): undo
# returns the kernel to the state it had at a question's start without
# running anything again.
#
# Processes: init (docker-init or catatonit) -> supervisor -> kernel. init
# exits when its child does, so that child is a small supervisor that lives
# as long as the session and does nothing but wait. A checkpoint is a fork of
# the kernel taken between cells: the child (the snapshot) holds the whole
# Python heap copy-on-write and blocks on its own wake pipe; only the
# forking thread exists in it, so no kernel thread is copied mid-work. A
# restore wakes the snapshot and the kernel leaves: the snapshot becomes the
# kernel, starts its threads again and reads the protocol on a new reader.
#
# The supervisor is a subreaper: every snapshot and kernel whose parent left
# is reparented to it, so it sees the active kernel's end. When the kernel
# dies (the OOM killer, a crash, os._exit) and the snapshot of the current
# question is alive, the supervisor says so to the host and signals that
# snapshot, which forks a new kernel from itself (and stays a snapshot): the
# session comes back at the question's start instead of losing everything.
# Without one it exits with the kernel's status, and the host sees the
# container stop as it did before checkpoints.
import ctypes
import select
import signal

# The OOM killer takes older snapshots first, then the newest (unless it
# holds little of its own: its score is its size plus half the limit), and
# the kernel last.
SNAPSHOT_OOM_ADJ, NEWEST_OOM_ADJ = 1000, 500
SQL_KEEP = 16 << 20      # the SQL database is kept in a snapshot up to this size
HANDOFF_SECS = 10        # a kernel that left must have a successor by then


class Checkpoints:
    sup = None     # the supervisor's pid
    ctl = None     # write end of the supervisor's control pipe
    snaps = {}     # checkpoint id -> (pid, write end of its wake pipe); the active kernel's view
    output = None  # in a snapshot: /output as it was
    sqlfiles = None  # in a snapshot: the SQL database's files as they were
    wake = None    # in a snapshot: the write end of its own wake pipe, for a kernel it forks


class _Revive(Exception):
    """SIGUSR1 in a snapshot: the kernel died; fork a new one from here."""


def _on_revive(signum, frame):
    raise _Revive


ck = Checkpoints()


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def supervise():
    """Splits this process: the parent stays as the supervisor and never
    returns; the child returns and becomes the kernel."""
    try:
        _libc().prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        ck.sup, ck.ctl = os.getppid(), w
        return
    os.close(w)
    null = os.open('/dev/null', os.O_WRONLY)
    os.dup2(null, 1)  # fd 1 is still the protocol stream here
    os.close(null)
    try:
        _supervise(r, pid)
    finally:
        os._exit(70)


def _status_code(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 70


def _supervise(ctl, active):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wr, ww = os.pipe()
    for fd in (wr, ww, ctl):
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(ww)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    stuck = []  # SIGUSR2 from the host (through init): the kernel does not answer
    signal.signal(signal.SIGUSR2, lambda *a: stuck.append(1))
    buf, deadline, last, eof = b'', None, 0, False
    newest, dead = 0, 70  # the current question's snapshot; the status of a kernel being revived
    successor = 0  # the snapshot taking over while no kernel is active
    while True:
        timeout = None if deadline is None else max(0.0, min(deadline - time.monotonic(), 0.05))
        try:
            select.select([wr] if eof else [ctl, wr], [], [], timeout)
        except InterruptedError:
            pass
        try:
            while os.read(wr, 512):
                pass
        except BlockingIOError:
            pass
        # Control messages first: a kernel says it leaves before it exits.
        try:
            while not eof:
                data = os.read(ctl, 4096)
                eof = not data  # no kernel holds the pipe any more
                buf += data
        except BlockingIOError:
            pass
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            parts = line.split()
            if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[1:]):
                continue
            if parts[0] == b'A':  # the active kernel is now this pid
                active, deadline, successor = int(parts[1]), None, 0
            elif parts[0] == b'L' and len(parts) == 3 and int(parts[1]) == active:  # it hands over to a snapshot
                active, successor, deadline = None, int(parts[2]), time.monotonic() + HANDOFF_SECS
            elif parts[0] == b'N':  # the current question's snapshot (0: none)
                newest = int(parts[1])
        if stuck:
            del stuck[:]
            if active:
                _kill_quietly(active, signal.SIGKILL)
                time.sleep(0.01)  # then it is reaped below, or in the next round
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                os._exit(last)
            if pid == 0:
                break
            last = _status_code(status)
            if pid != active:
                continue
            if not newest or not alive(newest):
                os._exit(last)
            send({'t': 'died', 'status': last})
            _kill_quietly(newest, signal.SIGUSR1)
            active, successor, newest, dead = None, newest, 0, last
            deadline = time.monotonic() + HANDOFF_SECS
        if eof and active is None:
            os._exit(dead)
        # The successor never came, or died on the way: the host sees the kernel gone.
        if deadline is not None and (time.monotonic() >= deadline or (successor and not alive(successor))):
            os._exit(dead)


def _kill_quietly(pid, sig):
    try:
        os.kill(pid, sig)
    except OSError:
        pass


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


def run_checkpoint(msg):
    """Forks a snapshot of the kernel. In the snapshot this returns only
    when a restore woke it, with the kernel running again."""
    t0 = time.monotonic()
    cid = msg['id']
    seq = int(msg['seq'])
    _prune()
    listing = output_listing()
    sqlfiles = _sql_files()
    _pause_openmp()
    r, w = os.pipe()
    locks = kernel_locks()
    for l in locks:  # no kernel thread holds one across the fork
        l.acquire()
    # Blocked until the snapshot has its handler: the supervisor may signal
    # it as soon as it is named.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)  # "multi-threaded, use of fork()"
            pid = os.fork()
    except OSError as e:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
        for l in locks:
            l.release()
        os.close(r)
        os.close(w)
        os.write(ck.ctl, b'N 0\n')  # no snapshot of this question to come back to
        send({'t': 'checkpoint', 'id': cid, 'error': {'type': type(e).__name__, 'message': 'fork: %s' % e}})
        return
    for l in locks:
        l.release()
    if pid == 0:
        ck.output, ck.sqlfiles, ck.wake = listing, sqlfiles, w
        _snapshot(r, seq)
        return
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    os.close(r)
    del listing, sqlfiles
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
