# SQLite databases for the profiler (sent with profile/front.py as one program):
# each table is profiled from its first rows like a sheet of a workbook, with
# the pandas line that reads it. The file is opened immutable: /data is
# read-only, and SQLite would otherwise try to make its journal there.

SQLITE_ROWS = 10000  # rows per table read for the profile
MAX_TABLES = 50


def sqlite_connect_code(path):
    return "sqlite3.connect(%r, uri=True)" % sqlite_uri(path)


def sqlite_uri(path):
    import urllib.parse  # here, not at start-up: most sessions attach no database

    return 'file:%s?immutable=1' % urllib.parse.quote(path)


def profile_sqlite(path, size, out, lim, spec):
    import sqlite3

    import pandas as pd

    con = sqlite3.connect(sqlite_uri(path), uri=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        out['sheets'] = []
        nrows = min(lim['sample_rows'], SQLITE_ROWS)
        for name in names[:MAX_TABLES]:
            q = '"%s"' % name.replace('"', '""')
            total = con.execute('SELECT count(*) FROM %s' % q).fetchone()[0]
            df = pd.read_sql_query('SELECT * FROM %s LIMIT %d' % (q, nrows), con)
            sheet = {
                'name': short(name),
                'rows': int(total),
                'header_row': 0,
                'columns': columns_of(df),
                'head': head_of(df),
                'notes': ['read with: pd.read_sql_query(%r, con)' % ('SELECT * FROM ' + q)],
            }
            if total > len(df):
                sheet['notes'].append(
                    'sampled: dtypes, missing counts and examples come from its first %d rows' % len(df)
                )
            out['sheets'].append(sheet)
    finally:
        con.close()
    notes = [
        'an SQLite database: import sqlite3; con = %s; then read each table with the line under it'
        % sqlite_connect_code(path)
    ]
    if len(names) > MAX_TABLES:
        notes.append('the database has %d tables; only the first %d are profiled' % (len(names), MAX_TABLES))
    if not names:
        notes.append('the database holds no table')
    out['notes'] = notes
    out['tables'] = len(names)
    out['header_row'] = 0
    if out['sheets']:
        main = max(out['sheets'], key=lambda s: s['rows'])
        out['rows'], out['columns'], out['head'] = main['rows'], main['columns'], main['head']


READERS['sqlite'] = profile_sqlite
