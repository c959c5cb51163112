# Output capture for quarry's kernel (sent together with kernel.py; see
# there). Python-level writes and raw writes to fds 1 and 2 both end in a
# Cap: the head is streamed, a tail kept, the rest only counted.
import codecs
import collections
import fcntl
import io
import os
import select
import threading
import time

# Limits shared by all kernel files (output.py comes first in the program).
HEAD_CHARS = 48000  # output kept from the start of a cell, per stream
TAIL_CHARS = 12000  # output kept from the end of a cell, per stream
FLUSH_CHARS = 8192  # pending output sent once it reaches this size...
FLUSH_SECS = 0.03  # ...or this age
REPR_CHARS = 10000
TABLE_HEAD, TABLE_TAIL, TABLE_ALL = 10, 5, 20
CELL_CHARS = 40
MAX_FIGURES = 20
MAX_PNG = 16 << 20
MAX_PNG_TOTAL = 40 << 20  # base64 of this fits the host's 64 MiB frame cap
MAX_OUTPUT_SCAN = 20000
MAX_FILES_REPORTED = 1000
OUTPUT = '/output'


def utf8_len(s, start=0):
    """UTF-8 length of s[start:] without copying a large string at once."""
    if s.isascii():
        return len(s) - start
    n = 0
    for i in range(start, len(s), 1 << 20):
        n += len(s[i : i + (1 << 20)].encode('utf-8', 'surrogatepass'))
    return n


class Cap:
    """One stream of one cell: the head is forwarded as it comes, then only
    a tail is kept and the rest counted; memory stays bounded whatever the
    code prints."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.RLock()
        self.reset(None)

    def reset(self, cell):
        with self.lock:
            self.cell = cell
            self.head_left = HEAD_CHARS
            self.pending = []
            self.pending_len = 0
            self.last_flush = time.monotonic()
            self.tail = collections.deque()
            self.tail_len = 0
            self.over = 0  # bytes past the head

    def write(self, s):
        with self.lock:
            if self.cell is None or not s:
                return
            n, start = len(s), 0
            if self.head_left > 0:
                take = s if n <= self.head_left else s[: self.head_left]
                start = len(take)
                self.head_left -= start
                self.pending.append(take)
                self.pending_len += start
                if self.pending_len >= FLUSH_CHARS or time.monotonic() - self.last_flush > FLUSH_SECS:
                    self.flush()
                if start == n:
                    return
            # Past the head: count and keep a tail, never copying all of s.
            self.over += (n - start) if s.isascii() else utf8_len(s, start)
            part = s[max(start, n - TAIL_CHARS) :]
            self.tail.append(part)
            self.tail_len += len(part)
            while self.tail_len - len(self.tail[0]) >= TAIL_CHARS:
                self.tail_len -= len(self.tail.popleft())

    def flush(self):
        with self.lock:
            if self.pending and self.cell is not None:
                send({'t': 'stream', 'id': self.cell, 'name': self.name, 'text': ''.join(self.pending)})
            self.pending = []
            self.pending_len = 0
            self.last_flush = time.monotonic()

    def finish(self):
        """Flushes the head, then the tail with a marker; returns bytes dropped."""
        with self.lock:
            self.flush()
            dropped = 0
            if self.over:
                tail = ''.join(self.tail)[-TAIL_CHARS:]
                dropped = self.over - utf8_len(tail)
                if dropped > 0:
                    text = '\n[... %s bytes of output dropped ...]\n' % format(dropped, ',')
                else:
                    dropped, text = 0, ''
                text += tail
                if self.cell is not None:
                    send({'t': 'stream', 'id': self.cell, 'name': self.name, 'text': text})
            self.cell = None
            return dropped


class CapBuffer(io.RawIOBase):
    """sys.stdout.buffer: bytes are decoded (invalid UTF-8 replaced)."""

    def __init__(self, cap):
        self.cap = cap

    def write(self, b):
        self.cap.write(bytes(b).decode('utf-8', 'replace'))
        return len(b)

    def writable(self):
        return True


class CapStream(io.TextIOBase):
    """sys.stdout/sys.stderr: Python-level writes go straight into the cap,
    without encoding the whole string (a 1 GB print must not double memory)."""

    def __init__(self, cap, fd):
        self.cap = cap
        self._fd = fd
        self.buffer = CapBuffer(cap)

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError('write() argument must be str, not %s' % type(s).__name__)
        self.cap.write(s)
        return len(s)

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    @property
    def encoding(self):
        return 'utf-8'

    @property
    def errors(self):
        return 'replace'


class FdDrain:
    """Drains one pipe behind fd 1 or 2 in a thread; the main thread drains
    the rest under the same lock at cell end so nothing written before is
    lost."""

    def __init__(self, fd, cap):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        fl = fcntl.fcntl(r, fcntl.F_GETFL)
        fcntl.fcntl(r, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        self.r = r
        self.cap = cap
        self.start()

    def start(self):
        """Starts the draining thread; a restored kernel (a fork, which has
        no other thread) calls it again."""
        self.lock = threading.Lock()
        self.decoder = codecs.getincrementaldecoder('utf-8')('replace')
        threading.Thread(target=self.loop, daemon=True).start()

    def read_some(self, limit):
        for _ in range(limit):
            try:
                data = os.read(self.r, 65536)
            except BlockingIOError:
                return
            if not data:
                return
            self.cap.write(self.decoder.decode(data))

    def loop(self):
        while True:
            select.select([self.r], [], [])
            with self.lock:
                self.read_some(16)

    def sync(self):
        with self.lock:
            self.read_some(4096)
