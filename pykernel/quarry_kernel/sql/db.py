# sql(query, db=NAME) for quarry's kernel (sent after sql/front.py): a database
# file in /data (SQLite, DuckDB) is read here, read-only; any other name is
# a source the host connected to (PostgreSQL, MariaDB, MySQL): the query goes to the host
# in a 'db' frame, the host runs it read-only and streams the rows back as
# Arrow IPC in db_chunk messages, ended by db_done. The container has no
# network: only the query and its result cross.
import os
import sys
import threading

DATA_DIR = '/data'


class DatabaseError(Exception):
    """An error from a database given by sql(..., db=): the database's own
    words (a write refused by the read-only transaction, a syntax error)."""


class _DBWait:
    def __init__(self):
        self.chunks = []
        self.done = threading.Event()
        self.msg = None


_db_waits = {}  # type: dict[tuple, object]
_db_seq = [0]


def db_reply(msg, f):
    """Called by the reader thread for db_chunk and db_done: the chunk's
    bytes follow its line and are read even when no call waits for them."""
    w = _db_waits.get((msg.get('cell'), msg.get('rid')))
    if msg.get('op') == 'db_chunk':
        n = int(msg.get('len') or 0)
        data = f.read(n) if n > 0 else b''
        if len(data) < n:
            os._exit(0)  # the host went away mid-chunk
        if w is not None:
            w.chunks.append(data)
    elif w is not None:
        w.msg = msg
        w.done.set()


def db_file(db):
    """The file in /data that db names (its name, or its name without the
    extension) and its kind, as the host read it; (None, None) when there
    is none."""
    try:
        names = sorted(os.listdir(DATA_DIR))
    except OSError:
        return None, None
    for name in names:
        if name != db and os.path.splitext(name)[0] != db:
            continue
        path = os.path.join(DATA_DIR, name)
        kind = db_kind(path)
        if kind:
            return path, kind
    return None, None


def db_kind(path):
    """'sqlite' or 'duckdb' for a database file the host attached (its row of
    the host's table of file kinds, kind.py), else None."""
    row = profile_mod.KNOWN.get(os.path.realpath(path)) or {}
    return row.get('reader') if row.get('reader') in ('sqlite', 'duckdb') else None


def sql_db(query, db, max_rows):
    if not isinstance(db, str) or not db:
        raise TypeError('db= takes the name of a connected source or of a database file in /data, e.g. db="sales"')
    path, kind = db_file(db)
    if kind == 'sqlite':
        return _sqlite(path, query, max_rows)
    if kind == 'duckdb':
        return _duckdb_file(path, query, max_rows)
    return _remote(query, db, max_rows)


def _remote(query, db, max_rows):
    if max_rows is SQL_MAX_ROWS or max_rows is None:
        max_rows = 0  # not given (or no cap asked for): the host's db_max_rows
    _db_seq[0] += 1
    key = (state.cell, _db_seq[0])
    w = _DBWait()
    _db_waits[key] = w
    try:
        send({'t': 'db', 'id': state.cell, 'rid': key[1], 'db': db, 'query': query, 'max_rows': max_rows or 0})
        while not w.done.wait(0.25):  # a timed wait lets Ctrl+C and the timeout in
            pass
    finally:
        _db_waits.pop(key, None)
    msg = w.msg
    if msg.get('note'):
        print('sql(db=%r): %s' % (db, msg['note']), file=sys.stderr)
    if msg.get('error'):
        raise DatabaseError(msg['error']).with_traceback(None)
    if not w.chunks:
        return None
    import pyarrow as pa

    data = b''.join(w.chunks)
    w.chunks = None
    table = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
    del data
    return _frame(table.schema, table.to_batches())


class _Background:
    """Runs fn on a helper thread so Ctrl+C and the timeout reach the main
    thread; stop() is called to make fn return early."""

    def __init__(self, fn, stop):
        self.fn, self.stop = fn, stop
        self.value, self.error = None, None

    def run(self):
        try:
            self.value = self.fn()
        except BaseException as e:
            self.error = e

    def join(self):
        t = threading.Thread(target=self.run, name='quarry-db', daemon=True)
        t.start()
        try:
            while t.is_alive():
                t.join(0.25)
        except KeyboardInterrupt:
            self.stop()
            t.join()
            raise
        if self.error is not None:
            e, self.error = self.error, None
            raise e
        return self.value


def _sqlite(path, query, max_rows):
    import sqlite3
    import urllib.parse

    uri = 'file:%s?mode=ro&immutable=1' % urllib.parse.quote(path)
    con = sqlite3.connect(uri, uri=True, check_same_thread=False)
    notes = []

    def fetch():
        try:
            cur = con.execute(query)
        except sqlite3.Warning as e:  # "You can only execute one statement at a time."
            raise DatabaseError(str(e)) from None
        except sqlite3.Error as e:
            raise DatabaseError(str(e)) from None
        if cur.description is None:
            return None
        cols = [d[0] for d in cur.description]
        try:
            rows = cur.fetchall() if max_rows is None else cur.fetchmany(max_rows + 1)
        except sqlite3.Error as e:
            raise DatabaseError(str(e)) from None
        if max_rows is not None and len(rows) > max_rows:
            rows = rows[:max_rows]
            notes.append(
                'the result has more than %d rows; only the first %d were fetched (pass max_rows= for more)'
                % (max_rows, max_rows)
            )
        return cols, rows

    try:
        got = _Background(fetch, con.interrupt).join()
    finally:
        con.close()
    for n in notes:
        print('sql(db=%r): %s' % (os.path.basename(path), n), file=sys.stderr)
    if got is None:
        return None
    import pandas as pd

    return pd.DataFrame.from_records(got[1], columns=got[0])


def _duckdb_file(path, query, max_rows):
    # The session's DuckDB attaches the file read-only for this call; USE
    # makes its tables the query's unqualified names.
    q = "ATTACH '%s' AS quarry_file (READ_ONLY); USE quarry_file; " % path.replace("'", "''")
    try:
        return sql(q + query, max_rows=max_rows)
    except DuckDBError as e:
        raise DatabaseError(str(e)).with_traceback(None) from None
