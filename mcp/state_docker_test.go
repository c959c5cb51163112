package mcp

import (
	"strings"
	"testing"
)

// The kernel keeps its state between calls, and a DataFrame comes back as
// a Markdown table and as structured rows.
func TestStateAcrossCalls(t *testing.T) {
	h := newHarness(t, Options{}, true, nil)
	h.writeFile("q1.csv", "department,budget,actual\nSales,100,120\nHR,50,45\nIT,80,95\n")
	att := h.ok("attach_file", map[string]any{"path": "q1.csv"})
	if got := text(att); !strings.Contains(got, "/data/q1.csv") || !strings.Contains(got, "read with:") || !strings.Contains(got, "budget") {
		t.Fatalf("attach text:\n%s", got)
	}
	var prof AttachOutput
	structured(t, att, &prof)
	if prof.Path != "/data/q1.csv" || prof.Rows != 3 || len(prof.Columns) != 3 {
		t.Fatalf("attach structured: %+v", prof)
	}
	h.ok("run_python", map[string]any{"code": "df = pd.read_csv('/data/q1.csv')\nx = 41"})
	if got := text(h.ok("run_python", map[string]any{"code": "x + 1"})); !strings.Contains(got, "42") {
		t.Fatalf("x + 1:\n%s", got)
	}
	res := h.ok("run_python", map[string]any{"code": "df['gap'] = df.actual - df.budget\ndf"})
	var out CellOutput
	structured(t, res, &out)
	if out.Cell != 3 || out.Table == nil || out.Table.Shape.Rows != 3 || out.Table.Shape.Columns != 4 || out.Table.Rows[0][3] != "20" {
		t.Fatalf("table structured: %+v", out)
	}
	if got := text(res); !strings.Contains(got, "| Sales |") || !strings.Contains(got, "gap") {
		t.Fatalf("table markdown:\n%s", got)
	}
}
