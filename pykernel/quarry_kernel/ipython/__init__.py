"""IPython's syntax, the one rule set for cells, notebooks and reruns.

Owns the line transform and ``check_cells`` (``syntax.py``), shell lines
(``shell.py``), package installs turned into requests (``packages.py``),
the magics that mean something in the sandbox (``magics.py``) and the
stand-in ``IPython.display`` (``display.py``).

May use: runtime
"""
