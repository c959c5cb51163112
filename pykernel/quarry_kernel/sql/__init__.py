"""``sql()``: DuckDB over the attached files, and ``sql(query, db=NAME)``.

Owns DuckDB's setup and its walls (``duckdb.py``), the call cells make
(``front.py``) and the database sources the host connects to, whose rows
come back over the wire in Arrow IPC (``db.py``).

May use: runtime
"""
