# DuckDB database files for the profiler (sent with profile/front.py as one
# program): each table and view is listed like a sheet of a workbook, with
# its row count, columns and first rows, and the sql(db=) call that reads
# it. The file is attached read-only through the kernel's own sql().
DUCKDB_ROWS = 5  # first rows per table in the profile
DUCKDB_TABLES = 50  # tables listed; the rest are counted
DUCKDB_READ = 12  # tables whose columns and first rows are read (one call each)


def profile_duckdb(path, size, out, lim, spec):
    import os
    import sys

    sql = sys.modules['__main__'].__dict__['sql']  # the kernel's, with its limits
    name = os.path.splitext(os.path.basename(path))[0]
    tables = sql(
        "SELECT schema_name, table_name, estimated_size AS n, 'table' AS kind FROM duckdb_tables() "
        "WHERE database_name = current_database() UNION ALL "
        "SELECT schema_name, view_name, NULL, 'view' FROM duckdb_views() "
        "WHERE database_name = current_database() AND NOT internal ORDER BY 3 DESC NULLS LAST, 1, 2",
        db=name,
    )
    out['sheets'] = []
    for i, row in enumerate(tables.head(DUCKDB_TABLES).itertuples()):
        q = '"%s"."%s"' % (row.schema_name.replace('"', '""'), row.table_name.replace('"', '""'))
        read = 'sql(%r, db=%r)' % ('SELECT * FROM ' + q, name)
        sheet = {
            'name': short(row.table_name if row.schema_name == 'main' else row.schema_name + '.' + row.table_name),
            'header_row': 0,
            'rows': 0,
            'notes': ['a ' + row.kind + '; read with: ' + read],
        }
        if row.n == row.n and row.n is not None:  # DuckDB's count for a table; a view has none
            sheet['rows'] = int(row.n)
        if i < DUCKDB_READ:
            try:
                df = sql('SELECT * FROM %s LIMIT %d' % (q, DUCKDB_ROWS), db=name)
                sheet['columns'], sheet['head'] = columns_of(df), head_of(df)
            except Exception as e:
                sheet['notes'].append('could not be read: %s' % str(e)[:200])
        out['sheets'].append(sheet)
    notes = [
        'a DuckDB database: query it with sql("SELECT …", db=%r), read-only; aggregate there rather than loading whole tables'
        % name
    ]
    if len(tables) > DUCKDB_TABLES:
        notes.append(
            'the database has %d tables and views; only the %d largest are listed' % (len(tables), DUCKDB_TABLES)
        )
    if not len(tables):
        notes.append('the database holds no table')
    out['notes'] = notes
    out['tables'] = len(tables)
    out['header_row'] = 0
    if out['sheets']:
        main = max(out['sheets'], key=lambda s: s['rows'])
        out['rows'] = main['rows']
        out['columns'], out['head'] = main.get('columns', []), main.get('head', [])


READERS['duckdb'] = profile_duckdb
