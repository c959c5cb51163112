package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// goldenWidths are the window widths every view of TestViewAtWidths is
// checked at: narrow, the usual 80, wide and very wide.
var goldenWidths = []int{60, 80, 120, 200}

// TestViewAtWidths checks views as plain text (the words and the layout
// matter here; TestViewGolden has the colours) at each width.
func TestViewAtWidths(t *testing.T) {
	for _, c := range []struct {
		name   string
		height int
		setup  func(m *Model)
	}{
		{"wording", 40, wording},
		{"hints_paths", 30, hintsAndPaths},
		{"wraps", 80, wraps},
		{"tables", 40, tables},
		{"chart_24", 24, chart},
		{"chart_50", 50, chart},
		{"hints_busy", 12, func(m *Model) { typeText(m, "Long question"); m.Update(press("enter")) }},
		{"viewer", 14, func(m *Model) { m.lastTable = sampleTable(); m.Update(press("ctrl+t")) }},
		// A long table: the kernel sent its first 10 and last 5 rows.
		{"viewer_long", 24, func(m *Model) { m.lastTable = longTable(48); m.Update(press("ctrl+t")) }},
		{"viewer_long_sort", 24, func(m *Model) {
			m.lastTable = longTable(48)
			m.Update(press("ctrl+t"))
			m.Update(press("right"))
			m.Update(press("s"))
		}},
	} {
		for _, w := range goldenWidths {
			t.Run(fmt.Sprintf("%s_%d", c.name, w), func(t *testing.T) {
				m, _ := newTestModel(t, w, c.height, true)
				c.setup(m)
				golden.RequireEqual(t, strings.ReplaceAll(trimRight(ansi.Strip(m.View().Content)), "▀", "#"))
			})
		}
	}
}

// trimRight drops the padding at line ends, so a golden file shows the
// layout and not the window's width in spaces.
func trimRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// run types a line into the input and sends it.
func run(t *testing.T, m *Model, s string) {
	typeText(m, s)
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
}

// wording: an attached file, an output one line longer than is shown, a
// model without a price; then /files and /tokens.
func wording(m *Model) {
	m.chips.adding("/tmp/sales.csv")
	attachedAs(m, "/tmp/sales.csv", (&fakeBackend{}).mustProfile())
	typeText(m, "Count the rows per region")
	m.Update(press("enter"))
	out := "North 10\nSouth 12\nEast 9\nWest 7\nCentral 3\nIslands 1\ntotal 42\n"
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "for r, n in df.region.value_counts().items(): print(r, n)", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: out, Duration: 200 * time.Millisecond}},
		agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Turn: agent.Tokens{Prompt: 1200, Completion: 80}, Total: agent.Tokens{Prompt: 1200, Completion: 80}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Six regions, 42 rows."},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	typeText(m, "/files")
	m.Update(press("enter"))
	typeText(m, "/tokens")
	m.Update(press("enter"))
}

// hintsAndPaths: a cell that drew a figure and saved a file, both deep in
// the session folder, and the idle key hints under them.
func hintsAndPaths(m *Model) {
	typeText(m, "Plot the variance")
	m.Update(press("enter"))
	dir := "/home/analyst/quarry-output/20261129-173235-3761b5"
	fig := kernel.File{Name: "figures/variance_by_department_and_quarter.png", Path: dir + "/figures/variance_by_department_and_quarter.png", Size: 2048, Width: 40, Height: 20}
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "v.plot.bar(); v.to_csv('variance_by_department.csv')", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Duration: 200 * time.Millisecond, Figures: []kernel.File{fig},
			Files: []kernel.File{{Name: "variance_by_department.csv", Path: dir + "/variance_by_department.csv", Size: 300}}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Done."},
	)
	m.Update(figureMsg{cell: 1, fig: &figure{file: fig, img: gradient(40, 20)}})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}

// longTable is an n-row budget frame as the kernel sends it: the first 10
// and the last 5 rows.
func longTable(n int) *kernel.Table {
	t := &kernel.Table{Columns: []string{"department", "plan", "actual", "variance", "pct", "owner", "note"},
		Dtypes: []string{"object", "int64", "int64", "int64", "float64", "object", "object"}, Rows: n, Cols: 7}
	row := func(i int) []string {
		v := (i*37)%100 - 50
		return []string{fmt.Sprintf("Dept %02d", i), "1000", fmt.Sprint(1000 + v), fmt.Sprint(v), fmt.Sprintf("%.1f", float64(v)/10), "Ana", "ok"}
	}
	for i := range n {
		if i >= 10 && i < n-5 {
			continue
		}
		t.Index = append(t.Index, fmt.Sprint(i))
		t.IndexDisplay = append(t.IndexDisplay, fmt.Sprint(i))
		if i < 10 {
			t.Head = append(t.Head, row(i))
		} else {
			t.Tail = append(t.Tail, row(i))
		}
		t.Display = append(t.Display, row(i))
	}
	return t
}

// wraps: a long line of code, a traceback and prose printed by a cell, an
// answer with list items that wrap, and /help.
func wraps(m *Model) {
	typeText(m, "Which department varies most?")
	m.Update(press("enter"))
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "for q in quarters:\n    top = df.groupby('department')['variance'].sum().sort_values(ascending=False)\ntop", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Duration: time.Second,
			Stdout: "  File \"/usr/lib/python3/dist-packages/pandas/core/indexes/base.py\", line 3819, in get_loc\nThe kernel went back to where it was: the variables are kept for the next question.\n"}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Findings:\n\n- Marketing varies most, with a variance well above every other department this year.\n- Sales is second.\n\n1. Check the Marketing invoices before the quarterly review with finance.\n"},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	typeText(m, "/help")
	m.Update(press("enter"))
}

// tables: a DataFrame with a long text column, and an answer with a
// Markdown table: each as wide as its content, cut only by the window.
func tables(m *Model) {
	typeText(m, "Notes by department")
	m.Update(press("enter"))
	long := "some fairly long text value Sales wrote about the quarter"
	tb := &kernel.Table{Columns: []string{"department", "note", "amount"}, Dtypes: []string{"object", "object", "int64"},
		Index: []string{"0", "1"}, IndexDisplay: []string{"0", "1"}, Rows: 2, Cols: 3,
		Head:    [][]string{{"Sales", long, "1200"}, {"IT", "ok", "80"}},
		Display: [][]string{{"Sales", long, "1200"}, {"IT", "ok", "80"}}}
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "notes", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Duration: time.Second, Value: &kernel.Value{Repr: "notes", Table: tb}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "| department | total |\n|---|---:|\n| Sales | 1,200 |\n| IT | 80 |\n"},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}

// chart: a 640×480 figure drawn with half-blocks; only its size in cells
// is kept in the golden file (each half-block cell as #).
func chart(m *Model) {
	typeText(m, "Plot it")
	m.Update(press("enter"))
	fig := kernel.File{Name: "figures/cell1-1.png", Path: "/s/figures/cell1-1.png", Size: 2048, Width: 640, Height: 480}
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "v.plot.bar()", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Duration: time.Second, Figures: []kernel.File{fig}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Drawn."},
	)
	m.Update(figureMsg{cell: 1, fig: &figure{file: fig, img: gradient(640, 480)}})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	m.Update(press("ctrl+home"))
}
