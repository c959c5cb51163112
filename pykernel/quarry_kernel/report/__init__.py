"""What a cell's ``variance()`` and ``bridge()`` calls gave the report.

Owns the wrappers the kernel puts in the user's namespace (``capture.py``)
and the report section of a cell's result frame.

May use: nothing
"""
