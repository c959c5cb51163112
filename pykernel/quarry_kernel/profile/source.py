# The bytes of a text file the profiler looks at (sent with profile/front.py as one
# program): its head, its tail, samples of non-ASCII bytes further in, and its
# line count, for plain and compressed files alike, within a time budget.
import io
import re
import time

SCAN_SECONDS = 1.0  # a compressed file's line count and size are extrapolated after this
PACKED_COST = 8  # a compressed file is sampled from full_bytes / PACKED_COST unpacked
TAIL_BYTES = 64 << 10
EXTRA_BYTES = 64 << 10
HEAD_LINES = 3  # the head is read on until it holds this many lines (very wide tables) ...
WIDE_HEAD = 16 << 20  # ... or this many bytes
_HIGH = re.compile(rb'[\x80-\xff]')


class TextSource:
    """head: the first SNIFF_BYTES cut at a line break (all of it when
    whole; more when that holds fewer than HEAD_LINES lines); chunks: head
    plus non-ASCII samples, each ending on a line break; tail: the last
    bytes when not whole; lines: the line count (an estimate when
    lines_exact is False); unpacked: a compressed file's size unpacked (an
    estimate when unpacked_exact is False); sampled: too large to read whole
    in the profile, judged by the unpacked size."""

    def __init__(self, path, size, compression, lim):
        self.tail = b''
        self.lines_exact = True
        self.unpacked, self.unpacked_exact = size, True
        extra = []
        with open_text(path, compression) as f:
            head = f.read(SNIFF_BYTES)
            eof = len(head) < SNIFF_BYTES
            while not eof and head.count(b'\n') < HEAD_LINES and len(head) < WIDE_HEAD:
                more = f.read(SNIFF_BYTES * 4)
                eof = len(more) < SNIFF_BYTES * 4
                head += more
            self.whole = eof or not f.read(1)
            if self.whole:
                self.head = head
                self.lines = count_lines(head)
                self.unpacked = len(head)
            else:
                self.head = trim_partial(head)
                if compression:
                    f.seek(0)
                    self.lines, extra, self.tail, self.lines_exact, self.unpacked = scan(f, len(self.head), path, size)
                    self.unpacked_exact = self.lines_exact
                    if not self.unpacked_exact:
                        self.unpacked, self.unpacked_exact = reconcile_unpacked(path, compression, self.unpacked)
                elif size <= lim['full_bytes']:
                    self.lines, extra, self.tail, _, _ = scan(f, len(self.head), None, size)
                else:
                    self.lines, extra, self.tail = sparse_scan(f, size)
        self.chunks = [self.head] + extra
        # Unpacking costs time on top of parsing (bzip2 the most): a
        # compressed file is read whole only when small unpacked.
        self.sampled = (self.unpacked * PACKED_COST if compression else size) > lim['full_bytes']


def reconcile_unpacked(path, compression, estimate):
    """(size, exact) of a compressed file unpacked, from the scan's
    extrapolation and what the format records: a zip's directory gives the
    size; gzip's trailer gives it modulo 4 GiB and for the last member only
    (bgzip and concatenated files have many), so it is taken only near the
    estimate."""
    try:
        if compression == 'zip':
            import zipfile

            with zipfile.ZipFile(path) as z:
                return [i for i in z.infolist() if not i.is_dir()][0].file_size, True
        if compression == 'gzip':
            with open(path, 'rb') as f:
                f.seek(-4, 2)
                isize = int.from_bytes(f.read(4), 'little')
            k = max(0, round((estimate - isize) / (1 << 32)))
            cand = isize + k * (1 << 32)
            if abs(cand - estimate) <= 0.2 * estimate:
                return cand, False
    except OSError, IndexError, ValueError:
        pass
    return estimate, False


def open_text(path, compression):
    # Each reader closes the SmallReads it was given, as it would a file it
    # opened itself.
    if compression == 'gzip':
        import gzip

        f = gzip.GzipFile(fileobj=SmallReads(path), mode='rb')
        f.myfileobj = f.fileobj
        return f
    if compression == 'bz2':
        import bz2

        f = bz2.BZ2File(SmallReads(path), 'rb')
        f._closefp = True
        return f
    if compression == 'xz':
        import lzma

        f = lzma.LZMAFile(SmallReads(path), 'rb')
        f._closefp = True
        return f
    if compression == 'zip':
        import zipfile

        z = zipfile.ZipFile(path)
        members = [i for i in z.infolist() if not i.is_dir()]
        return ZipMember(z, members[0])
    return open(path, 'rb')


class SmallReads(io.RawIOBase):
    """A file read in small pieces, so a decompressor holds little unread
    input and tell() says how far the scan got, within SMALL_READ bytes:
    the unpacked size of a file that packs 700 times is extrapolated from it."""

    SMALL_READ = 4 << 10

    def __init__(self, path):
        self.f = open(path, 'rb', buffering=0)

    def readable(self):
        return True

    def seekable(self):
        return True

    def read(self, n=-1):
        return self.f.read(self.SMALL_READ if n is None or n < 0 else min(n, self.SMALL_READ))

    def readinto(self, b):
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def seek(self, pos, whence=0):
        return self.f.seek(pos, whence)

    def tell(self):
        return self.f.tell()

    def close(self):
        if not self.closed:
            self.f.close()
        super().close()


class ZipMember(io.RawIOBase):
    """A zip archive's member that can be read again from its start."""

    def __init__(self, z, info):
        self.z, self.info = z, info
        self.f = z.open(info)

    def readable(self):
        return True

    def read(self, n=-1):
        return self.f.read(n)

    def seek(self, pos, whence=0):
        if pos or whence:
            raise io.UnsupportedOperation('seek')
        self.f.close()
        self.f = self.z.open(self.info)
        return 0

    def close(self):
        if not self.closed:
            self.f.close()
            self.z.close()
        super().close()


def count_lines(b):
    n = b.count(b'\n') or b.count(b'\r')
    if b and not b.endswith((b'\n', b'\r')):
        n += 1
    return n


def scan(f, skip, path, size):
    """One pass over the (decompressed) file from its start: the line
    count, up to 64 KB of lines with non-ASCII bytes past the head, and the
    last 64 KB. A compressed file stops after SCAN_SECONDS; its count is
    then scaled by the share of the compressed bytes read."""
    lines = 0
    extra, kept = [], 0
    pos = 0
    last = b''
    sep = None
    deadline = time.monotonic() + SCAN_SECONDS
    raw = getattr(f, 'fileobj', None) or getattr(f, '_fp', None)
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        if sep is None:
            sep = b'\r' if b'\n' not in b and b'\r' in b else b'\n'
        lines += b.count(sep)
        end = pos + len(b)
        if end > skip and kept < EXTRA_BYTES and not b.isascii():
            w = window(b, max(0, skip - pos), pos >= skip)
            if w:
                extra.append(w)
                kept += len(w)
        pos = end
        last = (last + b)[-TAIL_BYTES:]
        if path is not None and time.monotonic() > deadline:
            if isinstance(f, ZipMember):
                done, total = pos, f.info.file_size
            else:
                # The decompressor holds up to one read it has not used yet.
                done, total = (raw.tell() - SmallReads.SMALL_READ // 2 if hasattr(raw, 'tell') else 0), size
            if 0 < done < total:
                return int(lines * total / done), extra, b'', False, int(pos * total / done)
    if last and not last.endswith((b'\n', b'\r')):
        lines += 1
    return lines, extra, last, True, pos


def sparse_scan(f, size):
    """A file too large to read whole: the newline count (one pass at
    byte level, no decoding), non-ASCII samples from chunks spread over the
    file, and the tail."""
    lines = 0
    f.seek(0)
    while True:
        b = f.read(16 << 20)
        if not b:
            break
        lines += b.count(b'\n')
    extra = []
    step = max(size // 16, 1 << 20)
    for off in range(SNIFF_BYTES, size, step):
        f.seek(off)
        w = window(f.read(EXTRA_BYTES), 0, False)
        if w:
            extra.append(w)
    f.seek(max(0, size - TAIL_BYTES))
    tail = f.read()
    if tail and not tail.endswith(b'\n'):
        lines += 1
    return lines, extra, tail


def window(b, start, aligned):
    """Whole lines of b around its first non-ASCII byte at or after start;
    b starts on a line boundary only when aligned."""
    m = _HIGH.search(b, start)
    if not m:
        return None
    i = m.start()
    lo = b.rfind(b'\n', 0, i) + 1
    if lo == 0 and not aligned:
        lo = b.find(b'\n') + 1
        if lo == 0:
            return None
    hi = b.rfind(b'\n', lo, i + 8192)
    if hi < i:
        hi = b.find(b'\n', i)
    if hi < lo:
        return None
    return b[lo : hi + 1]


def first_undecodable(path, compression, codec):
    """Whole lines around the first bytes of the file codec cannot decode,
    or None when it decodes all of it."""
    import codecs

    dec = codecs.getincrementaldecoder(codec)('strict')
    prev = b''
    with open_text(path, compression) as f:
        while True:
            b = f.read(1 << 20)
            try:
                dec.decode(b, final=not b)
            except UnicodeDecodeError as e:
                buf = prev + b
                i = len(prev) + max(e.start, 0)
                lo = buf.rfind(b'\n', 0, i) + 1
                hi = buf.find(b'\n', i)
                return buf[lo : hi + 1 if hi >= 0 else len(buf)]
            if not b:
                return None
            prev = b[-4096:]
