package sandbox_test

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

const reportFrames = `import pandas as pd
a = pd.DataFrame({'account': ['4000', '4100', '5000', '6000'], 'line': ['Sales', '=cmd|x', 'Rent', 'Travel'],
                  'kind': ['revenue', 'revenue', 'cost', 'cost'], 'amount': [120.0, 40.0, 80.0, 9.0]})
b = a.assign(amount=[100.0, 50.0, 90.0, 9.0])
`

// The kernel keeps for the report what the cell's own variance() and
// bridge() calls returned: the table whole, in order, the Total last;
// the bridge's bars and the figure it was drawn in. A frame derived from
// the table, a cell without the calls, a failed cell and a closed figure
// give no report data (a note for the figure).
func TestReportCapture(t *testing.T) {
	s := sandboxtest.Session(t, sandboxtest.Engine(t), sandbox.Options{})
	ctx := context.Background()
	exec := func(code string) sandboxResult {
		t.Helper()
		res, err := s.Exec(ctx, code, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sandboxResult{res.Report, res.Figures, res.Stdout, res.Error != nil}
	}
	if r := exec(reportFrames); r.report != nil || r.failed {
		t.Fatalf("a cell without variance(): %+v", r.report)
	}
	r := exec("v = variance(a, b, value='amount', kind='kind')\nw = v[v.material]\nfig = bridge(v)\nprint(' '.join(repr(float(x)) for x in v['actual']))")
	if r.failed || r.report == nil || r.report.Variance == nil || r.report.Bridge == nil {
		t.Fatalf("the cell's report: %+v (failed %v)", r.report, r.failed)
	}
	v := r.report.Variance
	if len(v.Lines) != 5 || v.Rows != 5 || !v.Lines[4].Total || v.Lines[4].Label[len(v.Lines[4].Label)-1] != "Total" || v.BottomLine != "profit" {
		t.Fatalf("the table kept: %+v", v)
	}
	for i, s := range strings.Fields(r.stdout) {
		if got, err := strconv.ParseFloat(s, 64); err != nil || got != v.Lines[i].Actual {
			t.Errorf("line %d: the kernel's table holds %s, the report %v", i, s, v.Lines[i].Actual)
		}
	}
	if got := v.Lines[1]; got.Label[len(got.Label)-1] != "=cmd|x" || got.Effect != "worse" || got.Variance != -10 || got.Pct == nil || *got.Pct != -20 {
		t.Errorf("the second line: %+v", got)
	}
	if got := v.Lines[3]; got.Effect != "on budget" || got.Material {
		t.Errorf("the line on budget: %+v", got)
	}
	br := r.report.Bridge
	if len(r.figures) != 1 || br.File != r.figures[0].Name {
		t.Errorf("the bridge's figure %q, the cell's %+v", br.File, r.figures)
	}
	sum := 0.0
	for _, bar := range br.Bars {
		if bar.What == "line" || bar.What == "other" {
			sum += bar.Value
		}
	}
	if first, last := br.Bars[0], br.Bars[len(br.Bars)-1]; first.What != "start" || last.What != "end" || math.Abs(first.Value+sum-last.Value) > 0.005 {
		t.Errorf("the bars do not walk from the budget to the actual: %+v", br.Bars)
	}
	if r := exec("w2 = v.sort_values('variance')\nw2"); r.report != nil {
		t.Errorf("a derived frame was kept: %+v", r.report)
	}
	if r := exec("v2 = variance(a, b, value='amount', kind='kind')\n1/0"); r.report != nil || !r.failed {
		t.Errorf("a failed cell kept its table: %+v", r.report)
	}
	if r := exec("import matplotlib.pyplot as plt\nf = bridge(v)\nplt.close(f)"); r.report == nil || r.report.Bridge != nil || len(r.report.Notes) != 1 {
		t.Errorf("a closed bridge: %+v", r.report)
	}
}

type sandboxResult struct {
	report  *kernel.Report
	figures []kernel.File
	stdout  string
	failed  bool
}
