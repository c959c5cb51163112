"""File profiling: what a file holds, read the way the model will read it.

A program of its own (PROFILE_SRC), run in the module ``quarry_profile``,
not the user's namespace: ``front.py`` is the entry point (``profile(path,
limits, kind)``, ``READERS``), one module per dialect or format behind it
(``csv.py``, ``dialect.py``, ``encoding.py``, ``excel.py``, ``formats.py``,
``duckdb.py``, ``sqlite.py``, ``source.py``) and the summaries of a loaded
table (``table.py``, ``values.py``). The kernel reaches it as
``profile_mod``; it knows nothing of the kernel.

May use: nothing
"""
