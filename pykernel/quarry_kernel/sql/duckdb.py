# DuckDB for quarry's kernel (sent with kernel.py, before sql/front.py): Debian
# ships DuckDB's C library but no Python module, so it is driven through
# ctypes. This part declares the C functions sql() calls, derives DuckDB's
# limits from the container's cgroup and the process's data limit, and opens
# the session's database with the settings that wall it in.
import ctypes
import os
import resource

# The session's database holds views and macros between calls. It lives in
# /tmp, a tmpfs capped by Limits.TmpSize, and DuckDB does not spill to disk:
# every writable place in the sandbox is memory-backed by design (code must
# not be able to fill the host's disk), and spilling into memory would only
# move the pressure. A query that needs more than its share fails with
# DuckDB's out-of-memory error instead of taking the kernel down.
SQL_DIR = '/tmp/quarry-sql'
SQL_DB = SQL_DIR + '/session.duckdb'
SQL_HEADROOM = 256 << 20  # memory left to the kernel beside DuckDB's share
SQL_SHARE = 0.75  # of what is free after the headroom
SQL_DIRS = ['/data', '/output', '/tmp']  # the only paths SQL may read or write


class DuckDBError(Exception):
    """An error reported by DuckDB; the message is DuckDB's own."""


class _Arrow(ctypes.Structure):
    # Room for an ArrowSchema (72 bytes) or ArrowArray (80): DuckDB fills
    # it and pyarrow takes it over (and releases it).
    _fields_ = [('raw', ctypes.c_byte * 128)]


class _Result(ctypes.Structure):
    # duckdb_result (48 bytes); a few functions take it by value.
    _fields_ = [
        ('column_count', ctypes.c_uint64),
        ('row_count', ctypes.c_uint64),
        ('rows_changed', ctypes.c_uint64),
        ('columns', ctypes.c_void_p),
        ('error', ctypes.c_char_p),
        ('internal', ctypes.c_void_p),
    ]


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
    """The number after key in a file of "key value" lines (memory.stat,
    /proc/self/status), 0 when there is none."""
    try:
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 2 and fields[0] == key:
                    return int(fields[1])
    except OSError, ValueError:
        pass
    return 0


def sql_budget():
    """DuckDB's memory (bytes) and threads, from this container's cgroup
    (v2 or v1) and this process's data limit. Taken afresh at each call:
    what the kernel already holds (the code's DataFrames) is not DuckDB's
    to use; page cache of the files being read is reclaimable and not
    counted."""
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
    free = limit - max(used, 0)
    # Without a memory cgroup (rootless Podman on cgroup v1) the guard caps
    # each process's data segment instead (RLIMIT_DATA); DuckDB allocates
    # in this process, so what the cap leaves of it is the bound that holds.
    cap = resource.getrlimit(resource.RLIMIT_DATA)[0]
    if cap != resource.RLIM_INFINITY:
        free = min(free, cap - _memory_stat('VmData:', '/proc/self/status') * 1024)
    memory = max(64 << 20, int((free - SQL_HEADROOM) * SQL_SHARE))
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
_LOCK = "SET allowed_directories = [%s]; SET enable_external_access = false; SET lock_configuration = true" % ', '.join(
    "'%s'" % d for d in SQL_DIRS
)


def _open(lib, db, cfg):
    """Opens SQL_DB into db; returns None, or DuckDB's message."""
    err = ctypes.c_char_p()
    if lib.duckdb_open_ext(SQL_DB.encode(), ctypes.byref(db), cfg, ctypes.byref(err)) == 0:
        return None
    msg = _text(err.value)
    if err.value:
        lib.duckdb_free(err)
    return msg


def _open_db(memory, threads, notes):
    """Opens the session database with _settings. One DuckDB refuses (left
    by a kernel killed mid-write) is replaced by a new one, with a note."""
    lib = _lib
    cfg, db = ctypes.c_void_p(), ctypes.c_void_p()
    if lib.duckdb_create_config(ctypes.byref(cfg)) != 0:
        raise DuckDBError('DuckDB could not make its configuration')
    try:
        for k, v in _settings(memory, threads):
            if lib.duckdb_set_config(cfg, k.encode(), v.encode()) != 0:
                raise DuckDBError('DuckDB refused the setting %s=%s' % (k, v))
        msg = _open(lib, db, cfg)
        if msg is not None and not any(w in msg for w in ('No space left', 'Out of Memory', 'Permission')):
            for f in (SQL_DB, SQL_DB + '.wal'):
                try:
                    os.unlink(f)
                except OSError:
                    pass
            if _open(lib, db, cfg) is None:
                notes.append(
                    "sql(): the session's SQL database could not be opened (%s); a new one "
                    "was started, so views made earlier are gone" % msg.split('\n')[0]
                )
                msg = None
        if msg is not None:
            raise DuckDBError(msg or 'the SQL database %s could not be opened' % SQL_DB)
        return db
    finally:
        lib.duckdb_destroy_config(ctypes.byref(cfg))


def _with_advice(e, memory):
    """DuckDB's advice for running out of memory (a temporary directory), a
    missing encoding or function (an extension) cannot be followed here: say
    what can."""
    msg = str(e)
    first = msg.split('\n', 1)[0]
    if msg.startswith('Out of Memory Error'):
        return DuckDBError(
            '%s\nsql() had %d MiB for DuckDB in this sandbox and does not spill to disk: '
            'aggregate to fewer groups, select fewer columns, split the query (e.g. by month), '
            'or raise the sandbox memory (the memory setting, e.g. QUARRY_MEMORY=4g)' % (first, memory >> 20)
        )
    if 'does not support the encoding' in first:
        return DuckDBError(
            "%s\nDuckDB reads UTF-8, UTF-16 and latin-1 here (no extensions): for other encodings "
            "stream the file with pyarrow.csv.open_csv(path, read_options=pyarrow.csv.ReadOptions("
            "encoding=...)) or read it with pandas" % first
        )
    if 'extension' in first and ('exists in the' in first or 'INSTALL' in msg):
        cut = first.split(' but it exists in the ')[0].rstrip(',')
        return DuckDBError(
            '%s\nDuckDB extensions cannot be installed in the sandbox (only parquet, json, icu and the '
            'core functions are built in): read such files with pandas (e.g. pd.read_excel)' % cut
        )
    return e
