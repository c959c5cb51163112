"""A Dask cluster for the cells: ``client`` and ``dd``, when the host connects one.

Owns the cluster's client (``client.py``: the connection through the
relay, the size limit on what comes back, datasets named per session,
cancelling a stopped cell's tasks, the versions on both sides) and the
relay (``relay.py``, a program of its own the host starts beside the
kernel: the sandbox's one way to the scheduler, over the host).

May use: runtime
"""
