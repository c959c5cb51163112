# sql() for quarry's kernel (sent with kernel.py, after sql/duckdb.py):
# DuckDB over the attached files, returning a pandas DataFrame, so files
# larger than the kernel's memory can be aggregated without loading them.
# Results cross into pandas through Arrow's C data interface one chunk at a
# time, never as a copy of the whole file.
import ctypes
import os
import sys
import threading

SQL_MAX_ROWS = 1000000  # rows handed to pandas unless max_rows says otherwise
_one_at_a_time = threading.Lock()


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
        self.notes = []

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
        db = _open_db(self.memory, self.threads, self.notes)
        con = ctypes.c_void_p()
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
                        'or pass max_rows= if you need them all in pandas' % self.max_rows
                    )
                if size > self.max_bytes:
                    raise DuckDBError(
                        'the result is larger than %d MiB, too large for pandas in this sandbox: '
                        'select fewer columns or rows, or aggregate in SQL' % (self.max_bytes >> 20)
                    )
                batches.append(batch)
            self.schema, self.batches = schema, batches
        finally:
            for c in range(ncol):
                if types[c]:
                    t = ctypes.c_void_p(types[c])
                    lib.duckdb_destroy_logical_type(ctypes.byref(t))
            lib.duckdb_destroy_arrow_options(ctypes.byref(opts))


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
            except pa.ArrowInvalid, pa.ArrowNotImplementedError:
                col = col.cast(pa.float64(), safe=False)
            table = table.set_column(i, field.name, col)
    # No Arrow thread pool: it would outlive the call (see open_and_query).
    try:
        return table.to_pandas(use_threads=False, date_as_object=False)
    except pa.ArrowNotImplementedError:
        # A type pandas has no column for (DuckDB's UNION): Python objects.
        import pandas as pd

        cols = {}
        for name, col in zip(table.column_names, table.columns):
            try:
                cols[name] = col.to_pandas(use_threads=False, date_as_object=False)
            except pa.ArrowNotImplementedError:
                cols[name] = pd.Series(col.to_pylist(), dtype=object)
        return pd.DataFrame(cols)


def sql(query, max_rows=SQL_MAX_ROWS, db=None):
    """Run DuckDB SQL over the files in /data, or SQL on a database.

    One statement or several, separated by ';'. Files are read where they
    are, in pieces, so a file larger than memory can be aggregated. Views and
    macros persist across calls.

    Parameters
    ----------
    query : str
        The SQL.
    max_rows : int or None, default SQL_MAX_ROWS
        A result of more rows raises rather than being cut (None: no cap);
        with db=, a result over it is cut there, with a note.
    db : str, optional
        The name of a database to query instead, read-only: a connected
        source (PostgreSQL, MariaDB, MySQL, through quarry on the host) or a
        SQLite or DuckDB file in /data named so (without its extension).

    Returns
    -------
    DataFrame or None
        The last statement's rows, or None when it has none (CREATE VIEW,
        SET, ...).

    Raises
    ------
    DuckDBError
        DuckDB's own errors.
    DatabaseError
        With db=, the database's own errors.
    """
    if not isinstance(query, str):
        raise TypeError('sql() takes the SQL text as a string, e.g. sql("SELECT 42")')
    if '\x00' in query:
        raise ValueError('the SQL text contains a NUL character')
    if max_rows is not None and (not isinstance(max_rows, int) or max_rows < 0):
        raise ValueError('max_rows must be a number of rows or None')
    if db is not None:
        return sql_db(query, db, max_rows)
    _duckdb()
    os.makedirs(SQL_DIR, mode=0o700, exist_ok=True)
    with _one_at_a_time:  # one database file, one open at a time
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
    for n in call.notes:
        print(n, file=sys.stderr)
    if call.error is not None:
        e = call.error
        call.error = None
        raise e.with_traceback(None)
    if call.schema is None:
        return None
    return _frame(call.schema, call.batches)
