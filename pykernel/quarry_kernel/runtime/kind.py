# What a file is, for quarry's kernel: the host's table of file kinds is the
# one rule. A file the host profiled came with its row (profile_mod.KNOWN);
# for any other (one a cell wrote) the running cell asks the host in a
# 'kind' frame with the file's start and end (sandbox/kind.go), as sql(db=)
# asks for a query.
import base64
import os

KIND_HEAD = 256 << 10
KIND_TAIL = 64 << 10
_kind_waits = {}  # type: dict[tuple, object]
_kind_seq = [0]


def kind_reply(msg):
    """Called by the reader thread for kind_done."""
    w = _kind_waits.get((msg.get('cell'), msg.get('rid')))
    if w is not None:
        w.msg = msg
        w.done.set()


def file_row(path):
    """The row of the table of file kinds for path (name, reader, reads,
    compression); raises ValueError with the host's words for a file quarry
    does not read."""
    real = os.path.realpath(path)
    row = profile_mod.KNOWN.get(real)
    if row:
        return row
    if state.cell is None:
        raise RuntimeError('what %s is can be asked only while a cell runs' % os.path.basename(path))
    size = os.path.getsize(real)
    with open(real, 'rb') as f:
        head = f.read(KIND_HEAD)
        tail, at = b'', len(head)
        if size > len(head):
            at = max(len(head), size - KIND_TAIL)
            f.seek(at)
            tail = f.read(size - at)
    _kind_seq[0] += 1
    key = (state.cell, _kind_seq[0])
    w = _DBWait()
    _kind_waits[key] = w
    try:
        send(
            {
                't': 'kind',
                'id': state.cell,
                'rid': key[1],
                'name': os.path.basename(path),
                'size': size,
                'head': base64.b64encode(head).decode(),
                'tail': base64.b64encode(tail).decode(),
                'tail_at': at,
            }
        )
        while not w.done.wait(0.25):  # a timed wait lets Ctrl+C and the timeout in
            pass
    finally:
        _kind_waits.pop(key, None)
    if w.msg.get('error'):
        raise ValueError(w.msg['error'])
    return w.msg.get('kind') or {}
