# The start's copy, for quarry's kernel (sent with kernel.py, after
# checkpoint.py, whose snapshots it is one of).
#
# A checkpoint forks only once the imports' thread is gone (imports.py),
# which would make the first question's checkpoint, taken as its first
# cell is about to run, wait for all of them. So the kernel forks a copy
# of itself as it starts, before that thread exists, and the first
# checkpoint, when no cell has run since (profiles change nothing a
# snapshot keeps but files, which the copy lists when it is claimed), is
# that copy. A kernel woken from it starts its imports as a new kernel does.
import os
import select
import time


def fork_start_snapshot():
    """In the copy this returns only once a restore or a revive woke it,
    with the kernel running again."""
    r, w = os.pipe()
    ack_r, ack_w = os.pipe()
    try:
        pid = _fork()
    except OSError:
        for fd in (r, w, ack_r, ack_w):
            os.close(fd)
        return
    if pid == 0:
        os.close(ack_r)
        _start_copy(r, w, ack_w)
        return
    os.close(r)
    os.close(ack_w)
    _set_oom_adj(pid, SNAPSHOT_OOM_ADJ)  # the first to go: it may never be needed
    ck.start = (pid, w, ack_r)


def _start_copy(r, w, ack):
    """The copy waits for its claim (C seq): then it lists /output and the
    SQL database as a checkpoint does at its fork, says so, and is that
    checkpoint's snapshot."""
    line = b''
    while not line.endswith(b'\n'):
        try:
            data = os.read(r, 1)
        except InterruptedError:
            continue
        if not data:
            os._exit(0)  # the kernel is gone
        line += data
    parts = line.split()
    if len(parts) != 2 or parts[0] != b'C' or not parts[1].isdigit():
        os._exit(0)
    seq = int(parts[1])
    ck.output, ck.sqlfiles, ck.wake = output_listing(), _sql_files(), w
    os.write(ack, b'ok\n')
    os.close(ack)
    _snapshot(r, seq)


def claim_start_snapshot(msg):
    """The checkpoint msg asks for is the start's copy, when it is still
    there (no cell has run); False when it is not, or did not answer."""
    if ck.start is None:
        return False
    pid, w, ack = ck.start
    ck.start = None
    t0 = time.monotonic()
    seq = int(msg['seq'])
    ok = False
    try:
        os.write(w, b'C %d\n' % seq)
        ready, _, _ = select.select([ack], [], [], HANDOFF_SECS / 2)
        ok = bool(ready) and os.read(ack, 3) == b'ok\n'
    except OSError:
        pass
    os.close(ack)
    if not ok:
        _kill(pid)
        os.close(w)
        return False
    send({'t': 'running', 'id': msg['id']})
    _keep(msg['id'], seq, pid, w, t0)
    return True


def drop_start_snapshot():
    """A cell is about to run: the start's copy no longer stands for the
    kernel's state."""
    if ck.start is not None:
        pid, w, ack = ck.start
        ck.start = None
        _kill(pid)
        os.close(w)
        os.close(ack)
