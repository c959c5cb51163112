// Package notebook reads Jupyter notebooks for `quarry rerun` and for a chat
// that continues one: the cells as turns (read as a stream, every string
// cut), the files their code names (inputs.go, found by the read calls of
// filekind's table and a small scanner of Python source, pysource.go), and
// each cell's outputs compared with the ones the notebook stored
// (compare.go). The IPython syntax a rerun cannot run is the kernel's to
// refuse (pykernel/quarry_kernel/ipython/syntax.py), not this package's. Writing
// notebooks is export's; this package imports session, kernel and
// filekind only, never export, ui, agent or sandbox. A notebook is
// untrusted: its names and outputs are data.
package notebook
