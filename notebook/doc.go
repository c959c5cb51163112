// Package notebook reads Jupyter notebooks for `quarry rerun` and for a chat
// that continues one: the cells as turns (read as a stream, every string
// cut), the files their code names (inputs.go), the IPython syntax a rerun
// cannot run (ipython.go), and each cell's outputs compared with the ones
// the notebook stored (compare.go). Writing notebooks is export's; this
// package imports session and kernel only, never export, ui, agent or
// sandbox. A notebook is untrusted: its names and outputs are data.
package notebook
