"""``variance()`` and ``bridge()``: actuals against budget as FP&A reads them.

Owns the words of reports (``words.py``), periods (``periods.py``), money
(``money.py``), reading the two sides (``read.py``, ``header.py``,
``layout.py``, ``long.py``), line kinds and rows (``kinds.py``,
``rows.py``), matching lines (``match.py``), the checks (``checks.py``),
the result table (``frame.py``), the front (``front.py``) and the
waterfall (``bridge.py``); a dask DataFrame among the inputs is reduced
on its cluster to the sums these need (``cluster.py``). It knows pandas
(and dask only when handed a dask frame), not the wire.

May use: runtime
"""
