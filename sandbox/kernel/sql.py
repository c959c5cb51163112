# SQL for quarry's kernel (sent together with kernel.py): sql(query) runs
# DuckDB over the attached files and returns a pandas DataFrame, so files
# larger than the kernel's memory can be aggregated without loading them.
# Debian ships DuckDB's C library but no Python module: it is driven here
# through ctypes, and results cross into pandas through Arrow's C data
# interface one chunk at a time, never through a copy of the whole file.
import ctypes
import os
import threading

# The session's database holds views and macros between calls. It lives in
# /tmp, a tmpfs capped by Limits.TmpSize, and DuckDB does not spill to disk:
# every writable place in the sandbox is memory-backed by design (code must
# not be able to fill the host's disk), and spilling into memory would only
# move the pressure. A query that needs more than its share fails with
# DuckDB's out-of-memory error instead of taking the kernel down.
SQL_DIR = '/tmp/quarry-sql'
SQL_DB = SQL_DIR + '/session.duckdb'
SQL_MAX_ROWS = 1000000       # rows handed to pandas unless max_rows says otherwise
SQL_HEADROOM = 256 << 20     # memory left to the kernel beside DuckDB's share
SQL_SHARE = 0.75             # of what is free after the headroom
SQL_DIRS = ['/data', '/output', '/tmp']  # the only paths SQL may read or write


class DuckDBError(Exception):
    """An error reported by DuckDB; the message is DuckDB's own."""


class _Arrow(ctypes.Structure):
    # Room for an ArrowSchema (72 bytes) or ArrowArray (80): DuckDB fills
    # it and pyarrow takes it over (and releases it).
    _fields_ = [('raw', ctypes.c_byte * 128)]


class _Result(ctypes.Structure):
    # duckdb_result (48 bytes); a few functions take it by value.
    _fields_ = [('column_count', ctypes.c_uint64), ('row_count', ctypes.c_uint64),
                ('rows_changed', ctypes.c_uint64), ('columns', ctypes.c_void_p),
                ('error', ctypes.c_char_p), ('internal', ctypes.c_void_p)]


_lib = None


def _duckdb():
    """Loads libduckdb once and declares the functions sql() calls."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL('libduckdb.so.2.0')
    P, S, I, U, B = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_bool
    PP, R = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Result)
    sigs = {
        'duckdb_library_version': (S, []),
        'duckdb_create_config': (I, [PP]),
        'duckdb_set_config': (I, [P, S, S]),
        'duckdb_destroy_config': (None, [PP]),
        'duckdb_open_ext': (I, [S, PP, P, ctypes.POINTER(S)]),
        'duckdb_close': (None, [PP]),
        'duckdb_connect': (I, [P, PP]),
        'duckdb_disconnect': (None, [PP]),
        'duckdb_interrupt': (None, [P]),
        'duckdb_free': (None, [P]),
        'duckdb_extract_statements': (U, [P, S, PP]),
        'duckdb_extract_statements_error': (S, [P]),
        'duckdb_destroy_extracted': (None, [PP]),
        'duckdb_prepare_extracted_statement': (I, [P, P, U, PP]),
        'duckdb_prepare_error': (S, [P]),
        'duckdb_destroy_prepare': (None, [PP]),
        'duckdb_execute_prepared': (I, [P, R]),
        'duckdb_execute_prepared_streaming': (I, [P, R]),
        'duckdb_result_error': (S, [R]),
        'duckdb_result_return_type': (I, [_Result]),
        'duckdb_destroy_result': (None, [R]),
        'duckdb_column_count': (U, [R]),
        'duckdb_column_name': (S, [R, U]),
        'duckdb_column_logical_type': (P, [R, U]),
        'duckdb_destroy_logical_type': (None, [PP]),
        'duckdb_fetch_chunk': (P, [_Result]),
        'duckdb_destroy_data_chunk': (None, [PP]),
        'duckdb_result_get_arrow_options': (P, [R]),
        'duckdb_destroy_arrow_options': (None, [PP]),
        'duckdb_to_arrow_schema': (P, [P, PP, ctypes.POINTER(S), U, P]),
        'duckdb_data_chunk_to_arrow': (P, [P, P, P]),
        'duckdb_error_data_has_error': (B, [P]),
        'duckdb_error_data_message': (S, [P]),
        'duckdb_destroy_error_data': (None, [PP]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _lib = lib
    return lib


def _text(b):
    return b.decode('utf-8', 'replace') if b else ''


def _read_first(*paths):
    for p in paths:
        try:
            with open(p) as f:
                return f.read().strip()
        except OSError:
            continue
    return ''


def _memory_stat(key, path):
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.partition(' ')
                if k == key:
                    return int(v)
    except (OSError, ValueError):
        pass
    return 0


def sql_budget():
    """DuckDB's memory (bytes) and threads, from this container's cgroup
    (v2 or v1). Taken afresh at each call: what the kernel already holds
    (the code's DataFrames) is not DuckDB's to use; page cache of the files
    being read is reclaimable and not counted."""
    phys = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    limit = _read_first('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes')
    limit = int(limit) if limit.isdigit() and 0 < int(limit) < phys else phys
    used = 0
    v2 = _read_first('/sys/fs/cgroup/memory.current')
    if v2.isdigit():
        used = int(v2) - _memory_stat('inactive_file', '/sys/fs/cgroup/memory.stat')
    else:
        v1 = _read_first('/sys/fs/cgroup/memory/memory.usage_in_bytes')
        if v1.isdigit():
            used = int(v1) - _memory_stat('total_inactive_file', '/sys/fs/cgroup/memory/memory.stat')
    memory = max(64 << 20, int((limit - max(used, 0) - SQL_HEADROOM) * SQL_SHARE))
    cpus = len(os.sched_getaffinity(0))
    quota, period = -1, 100000
    v2 = _read_first('/sys/fs/cgroup/cpu.max').split()
    if len(v2) == 2 and v2[0].isdigit() and v2[1].isdigit():
        quota, period = int(v2[0]), int(v2[1])
    else:
        q = _read_first('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')
        p = _read_first('/sys/fs/cgroup/cpu/cpu.cfs_period_us')
        if q.isdigit() and p.isdigit():
            quota, period = int(q), int(p)
    if quota > 0 and period > 0:
        cpus = min(cpus, -(-quota // period))
    return memory, max(1, cpus)


# Where INSTALL would write and fetch from: outside the allowed folders and
# local, so INSTALL fails on permissions before it could try the network.
_NO_EXTENSIONS = '/usr/lib/duckdb/extensions'
_NO_REPOSITORY = '/usr/lib/duckdb/no-repository'


def _settings(memory, threads):
    """Options fixed when the database opens: no extension is installed or
    loaded beyond the built-in ones, and there is no spilling (see SQL_DIR)."""
    return [
        ('autoinstall_known_extensions', 'false'),
        ('autoload_known_extensions', 'false'),
        ('allow_community_extensions', 'false'),
        ('allow_unsigned_extensions', 'false'),
        ('extension_directory', _NO_EXTENSIONS),
        ('custom_extension_repository', _NO_REPOSITORY),
        ('autoinstall_extension_repository', _NO_REPOSITORY),
        ('memory_limit', '%dMiB' % (memory >> 20)),
        ('threads', str(threads)),
        ('temp_directory', ''),
    ]


# Run before the user's SQL on every connection: file access outside
# SQL_DIRS is refused and no setting (limits included) can change after.
_LOCK = ("SET allowed_directories = [%s]; SET enable_external_access = false; "
         "SET lock_configuration = true" % ', '.join("'%s'" % d for d in SQL_DIRS))


class _Call:
    """One sql() call, run on a helper thread so the kernel's main thread
    stays responsive: Ctrl+C and the cell timeout raise KeyboardInterrupt
    there, which interrupts DuckDB through the connection."""

    def __init__(self, query, max_rows):
        self.query, self.max_rows = query, max_rows
        self.memory, self.threads = sql_budget()
        self.max_bytes = max(64 << 20, self.memory // 4)
        self.lock = threading.Lock()
        self.con = None
        self.cancelled = False
        self.schema, self.batches, self.error = None, None, None

    def cancel(self):
        with self.lock:
            self.cancelled = True
            if self.con is not None:
                _lib.duckdb_interrupt(self.con)

    def run(self):
        try:
            self.open_and_query()
        except DuckDBError as e:
            self.error = _with_advice(e, self.memory)
        except BaseException as e:
            self.error = e

    def open_and_query(self):
        lib = _lib
        memory, threads = self.memory, self.threads
        cfg, db, con = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        err = ctypes.c_char_p()
        if lib.duckdb_create_config(ctypes.byref(cfg)) != 0:
            raise DuckDBError('DuckDB could not make its configuration')
        try:
            for k, v in _settings(memory, threads):
                if lib.duckdb_set_config(cfg, k.encode(), v.encode()) != 0:
                    raise DuckDBError('DuckDB refused the setting %s=%s' % (k, v))
            if lib.duckdb_open_ext(SQL_DB.encode(), ctypes.byref(db), cfg, ctypes.byref(err)) != 0:
                msg = _text(err.value)
                if err.value:
                    lib.duckdb_free(err)
                raise DuckDBError(msg or 'the SQL database %s could not be opened' % SQL_DB)
        finally:
            lib.duckdb_destroy_config(ctypes.byref(cfg))
        # Opened per call and closed before returning: DuckDB's worker
        # threads never outlive the call, so the kernel may fork() between
        # cells (checkpoints) without copying threads that hold locks.
        try:
            if lib.duckdb_connect(db, ctypes.byref(con)) != 0:
                raise DuckDBError('DuckDB could not connect to %s' % SQL_DB)
            try:
                with self.lock:
                    if self.cancelled:
                        raise KeyboardInterrupt
                    self.con = con
                self.statements(_LOCK, want=False)
                self.statements(self.query, want=True)
            finally:
                with self.lock:
                    self.con = None
                lib.duckdb_disconnect(ctypes.byref(con))
        finally:
            lib.duckdb_close(ctypes.byref(db))

    def statements(self, text, want):
        lib = _lib
        ext = ctypes.c_void_p()
        n = lib.duckdb_extract_statements(self.con, text.encode('utf-8'), ctypes.byref(ext))
        try:
            if n == 0:
                raise DuckDBError(_text(lib.duckdb_extract_statements_error(ext)) or 'no SQL statement given')
            for i in range(n):
                self.statement(ext, i, want and i == n - 1)
        finally:
            lib.duckdb_destroy_extracted(ctypes.byref(ext))

    def statement(self, ext, i, want):
        lib = _lib
        prep = ctypes.c_void_p()
        res = _Result()
        ran = False
        try:
            if lib.duckdb_prepare_extracted_statement(self.con, ext, i, ctypes.byref(prep)) != 0:
                raise DuckDBError(_text(lib.duckdb_prepare_error(prep)))
            run = lib.duckdb_execute_prepared_streaming if want else lib.duckdb_execute_prepared
            st = run(prep, ctypes.byref(res))
            ran = True
            if st != 0:
                raise DuckDBError(_text(lib.duckdb_result_error(ctypes.byref(res))))
            if want:
                self.schema, self.batches = None, None
                if lib.duckdb_result_return_type(res) == 3:  # DUCKDB_RESULT_TYPE_QUERY_RESULT
                    self.fetch(res)
        finally:
            if ran:
                lib.duckdb_destroy_result(ctypes.byref(res))
            if prep:
                lib.duckdb_destroy_prepare(ctypes.byref(prep))

    def fetch(self, res):
        import pyarrow as pa
        lib = _lib
        rp = ctypes.byref(res)
        ncol = lib.duckdb_column_count(rp)
        opts = ctypes.c_void_p(lib.duckdb_result_get_arrow_options(rp))
        types = (ctypes.c_void_p * ncol)()
        names = (ctypes.c_char_p * ncol)()
        try:
            for c in range(ncol):
                types[c] = lib.duckdb_column_logical_type(rp, c)
                names[c] = lib.duckdb_column_name(rp, c)
            cschema = _Arrow()
            _arrow_check(lib.duckdb_to_arrow_schema(opts, types, names, ncol, ctypes.addressof(cschema)))
            schema = pa.Schema._import_from_c(ctypes.addressof(cschema))
            batches, rows, size = [], 0, 0
            while True:
                chunk = ctypes.c_void_p(lib.duckdb_fetch_chunk(res))
                if not chunk:
                    # A streamed query may fail after it started (out of
                    # memory, a bad value deep in a file): the end says so.
                    msg = lib.duckdb_result_error(rp)
                    if msg:
                        raise DuckDBError(_text(msg))
                    break
                try:
                    carr = _Arrow()
                    _arrow_check(lib.duckdb_data_chunk_to_arrow(opts, chunk, ctypes.addressof(carr)))
                    batch = pa.RecordBatch._import_from_c(ctypes.addressof(carr), schema)
                finally:
                    lib.duckdb_destroy_data_chunk(ctypes.byref(chunk))
                rows += batch.num_rows
                size += batch.nbytes
                if self.max_rows is not None and rows > self.max_rows:
                    raise DuckDBError(
                        'the result has more than %d rows: aggregate in SQL (GROUP BY), add LIMIT, '
                        'or pass max_rows= if you need them all in pandas' % self.max_rows)
                if size > self.max_bytes:
                    raise DuckDBError(
                        'the result is larger than %d MiB, too large for pandas in this sandbox: '
                        'select fewer columns or rows, or aggregate in SQL' % (self.max_bytes >> 20))
                batches.append(batch)
            self.schema, self.batches = schema, batches
        finally:
            for c in range(ncol):
                if types[c]:
                    t = ctypes.c_void_p(types[c])
                    lib.duckdb_destroy_logical_type(ctypes.byref(t))
            lib.duckdb_destroy_arrow_options(ctypes.byref(opts))


def _with_advice(e, memory):
    """DuckDB's advice for running out of memory (a temporary directory) or
    a missing encoding (an extension) cannot be followed here: say what can."""
    msg = str(e)
    first = msg.split('\n', 1)[0]
    if msg.startswith('Out of Memory Error'):
        return DuckDBError(
            '%s\nsql() had %d MiB for DuckDB in this sandbox and does not spill to disk: '
            'aggregate to fewer groups, select fewer columns, split the query (e.g. by month), '
            'or raise the sandbox memory (the memory setting, e.g. QUARRY_MEMORY=4g)' % (first, memory >> 20))
    if 'does not support the encoding' in first:
        return DuckDBError(
            "%s\nDuckDB reads UTF-8, UTF-16 and latin-1 here (no extensions): for other encodings "
            "stream the file with pyarrow.csv.open_csv(path, read_options=pyarrow.csv.ReadOptions("
            "encoding=...)) or read it with pandas" % first)
    return e


def _arrow_check(ed):
    if not ed:
        return
    e = ctypes.c_void_p(ed)
    try:
        if _lib.duckdb_error_data_has_error(e):
            raise DuckDBError(_text(_lib.duckdb_error_data_message(e)))
    finally:
        _lib.duckdb_destroy_error_data(ctypes.byref(e))


def _frame(schema, batches):
    """A pandas DataFrame as DuckDB's own Python module gives it: DECIMAL
    and HUGEINT become numbers (int64 when whole and in range, else
    float64) rather than columns of Python Decimal objects."""
    import pyarrow as pa
    table = pa.Table.from_batches(batches, schema=schema)
    for i, field in enumerate(table.schema):
        if pa.types.is_decimal(field.type):
            col = table.column(i)
            try:
                if field.type.scale != 0:
                    raise pa.ArrowInvalid('fractional')
                col = col.cast(pa.int64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                col = col.cast(pa.float64(), safe=False)
            table = table.set_column(i, field.name, col)
    # No Arrow thread pool: it would outlive the call (see open_and_query).
    return table.to_pandas(use_threads=False, date_as_object=False)


def sql(query, max_rows=SQL_MAX_ROWS):
    """Runs DuckDB SQL (one statement or several, separated by ';') over the
    files in /data and returns the last statement's rows as a pandas
    DataFrame, or None when it has none (CREATE VIEW, SET, ...). Files are
    read where they are, in pieces, so a file larger than memory can be
    aggregated. Views and macros persist across calls. A result of more than
    max_rows rows (None: no cap) raises rather than being cut."""
    if not isinstance(query, str):
        raise TypeError('sql() takes the SQL text as a string, e.g. sql("SELECT 42")')
    if max_rows is not None and (not isinstance(max_rows, int) or max_rows < 0):
        raise ValueError('max_rows must be a number of rows or None')
    _duckdb()
    os.makedirs(SQL_DIR, mode=0o700, exist_ok=True)
    call = _Call(query, max_rows)
    t = threading.Thread(target=call.run, name='quarry-sql', daemon=True)
    t.start()
    try:
        t.join()
    except KeyboardInterrupt:
        call.cancel()
        while t.is_alive():
            try:
                t.join()
            except KeyboardInterrupt:
                call.cancel()
        raise
    if call.error is not None:
        e = call.error
        call.error = None
        raise e.with_traceback(None)
    if call.schema is None:
        return None
    return _frame(call.schema, call.batches)
