"""The kernel's loop and everything that meets the wire.

Owns the main loop and the protocol (``kernel.py``), output capture
(``output.py``), cell results as IPython shows them (``values.py``), the
file-kind question to the host (``kind.py``), checkpoints (``checkpoint.py``,
``checkpoint_start.py``), the supervisor (``supervisor.py``) and the
libraries cells find imported (``imports.py``). It knows the wire, not
pandas: the loop puts the other rooms' calls in the user's namespace and
hands their frames on.

May use: ipython, sql, variance, report, cluster
"""
