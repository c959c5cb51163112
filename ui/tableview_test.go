package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func openTable(t *testing.T, out string) *Model {
	t.Helper()
	m, _ := newTestModel(t, 80, 20, true)
	m.opts.OutputDir = out
	m.lastTable, m.lastTableCell = sampleTable(), 3
	m.Update(press("ctrl+t"))
	if m.tableView == nil {
		t.Fatal("ctrl+t did not open the table")
	}
	return m
}

func TestTableViewerAlignsAndFormats(t *testing.T) {
	m := openTable(t, "")
	s := ansi.Strip(m.View().Content)
	for _, want := range []string{"  1,200.50 │", " 15,000.00 │", "     77.70 │", "4 rows × 3 columns"} {
		if !strings.Contains(s, want) {
			t.Errorf("viewer lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "77.70000000000002") {
		t.Errorf("raw float repr in the viewer:\n%s", s)
	}
}

func TestTableViewerSearch(t *testing.T) {
	m := openTable(t, "")
	m.Update(press("/"))
	typeText(m, "eas")
	m.Update(press("enter"))
	if m.tableView.hit != 2 || !strings.Contains(m.tableView.note, "row 3 of 4") {
		t.Fatalf("search for eas: hit %d, note %q", m.tableView.hit, m.tableView.note)
	}
	m.Update(press("n")) // the only match: found again
	if m.tableView.hit != 2 {
		t.Fatalf("n moved to %d", m.tableView.hit)
	}
	m.Update(press("/"))
	typeText(m, "nowhere")
	m.Update(press("enter"))
	if m.tableView.hit != -1 || !strings.Contains(m.tableView.note, "not found") {
		t.Fatalf("search for nowhere: hit %d, note %q", m.tableView.hit, m.tableView.note)
	}
	if m.tableView == nil {
		t.Fatal("typing a search closed the viewer")
	}
}

// c copies the exact values, tab-separated, through OSC 52.
func TestTableViewerCopies(t *testing.T) {
	m := openTable(t, "")
	_, cmd := m.Update(press("c"))
	if cmd == nil {
		t.Fatal("c gave no command")
	}
	want := "\tregion\trevenue\tunits\n0\tNorth\t1200.5\t10\n1\tSouth\t980.25\t32\n2\tEast\t15000.0\t7\n3\tWest\t77.70000000000002\t120\n"
	if got := fmt.Sprint(cmd()); got != want { // the clipboard message carries the text
		t.Fatalf("copied %q, want %q", got, want)
	}
	if !strings.Contains(m.tableView.note, "copied the table (4 rows)") {
		t.Errorf("note %q", m.tableView.note)
	}
	m.Update(press("right"))
	m.Update(press("C"))
	if got := tsv(m.tableView.tableRecords(m.tableView.sel)); got != "\trevenue\n0\t1200.5\n1\t980.25\n2\t15000.0\n3\t77.70000000000002\n" {
		t.Errorf("column copy %q", got)
	}
}

func TestTableViewerWritesCSV(t *testing.T) {
	out := t.TempDir()
	m := openTable(t, out)
	m.tableView.t.Head[0][0] = "=HYPERLINK(\"x\")" // a formula from the sandbox
	for range 2 {
		_, cmd := m.Update(press("w"))
		if cmd == nil {
			t.Fatal("w gave no command")
		}
		m.Update(cmd())
	}
	for _, name := range []string{"cell3.csv", "cell3-2.csv"} {
		b, err := os.ReadFile(filepath.Join(out, "tables", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(string(b), ",region,revenue,units\n0,\"'=HYPERLINK(\"\"x\"\")\",1200.5,10\n") {
			t.Errorf("%s:\n%s", name, b)
		}
	}
	if !strings.Contains(m.tableView.note, "saved 4 rows to "+filepath.Join(out, "tables", "cell3-2.csv")) {
		t.Errorf("note %q", m.tableView.note)
	}
}

// In a viewer too narrow for the whole path, the saved file's path gives
// way from the left and its name stays on screen.
func TestTableViewerShortensTheSavedPathFromTheLeft(t *testing.T) {
	m, _ := newTestModel(t, 44, 20, true)
	m.opts.OutputDir = filepath.Join(t.TempDir(), "a-rather-long-session-folder-name")
	m.lastTable, m.lastTableCell = sampleTable(), 3
	m.Update(press("ctrl+t"))
	_, cmd := m.Update(press("w"))
	if cmd == nil {
		t.Fatal("w gave no command")
	}
	m.Update(cmd())
	if m.tableView == nil {
		t.Fatal("the viewer closed")
	}
	if s := ansi.Strip(m.tableView.Render(m.width, m.height, m.theme)); !strings.Contains(s, "…/tables/cell3.csv") {
		t.Errorf("the saved path is not shortened from the left at 44 columns:\n%s", s)
	}
}

// A long table the kernel sent in part: the gap is marked, End reaches
// its last row, a search says what it searched, and no sort pretends to be
// the table's.
func TestTableViewerOnAPartialTable(t *testing.T) {
	m, _ := newTestModel(t, 80, 12, true)
	m.lastTable = longTable(48)
	m.Update(press("ctrl+t"))
	m.Update(press("G"))
	v := ansi.Strip(m.View().Content)
	if !strings.Contains(v, "Dept 47") || !strings.Contains(v, "⋯ 33 rows not in the viewer ⋯") {
		t.Errorf("End:\n%s", v)
	}
	m.Update(press("g"))
	for _, k := range []string{"/", "D", "e", "p", "t", " ", "4", "5", "enter"} {
		m.Update(press(k))
	}
	if !strings.Contains(m.tableView.note, "row 13 of the 15 the viewer has") || !strings.Contains(ansi.Strip(m.View().Content), "Dept 45") {
		t.Errorf("search: %q\n%s", m.tableView.note, ansi.Strip(m.View().Content))
	}
	m.Update(press("right"))
	m.Update(press("s"))
	if m.tableView.sortBy != -1 || !strings.Contains(m.tableView.note, "no sort") {
		t.Errorf("sorted %d, note %q", m.tableView.sortBy, m.tableView.note)
	}
}
