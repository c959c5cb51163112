# The supervisor of quarry's kernel (sent with kernel.py, before it; the
# checkpoints it serves are checkpoint.py's).
#
# Processes: init (docker-init or catatonit) -> supervisor -> kernel. init
# exits when its child does, so that child is a small supervisor that lives
# as long as the session and does nothing but wait.
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
import os
import select
import signal
import time


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
