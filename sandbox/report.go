package sandbox

import (
	"math"

	"github.com/quarry-cli/quarry/kernel"
)

// reportFigure names the bridge's figure in the cell's report once the
// harvest has saved it: the i-th figure of the frame, when its shape is the
// one the kernel reported (a figure skipped before it would shift the
// count, and a wrong chart is worse than none).
func reportFigure(r *kernel.Report, i int, f kernel.File) {
	if r == nil || r.Bridge == nil || r.Bridge.Figure != i {
		return
	}
	if f.Height == 0 || math.Abs(float64(f.Width)/float64(f.Height)/r.Bridge.Aspect-1) > 0.02 {
		r.Notes = append(r.Notes, "the bridge's figure was not the one expected: the report has no chart")
		return
	}
	r.Bridge.File = f.Name
}
