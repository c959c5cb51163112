package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// nbclientSave executes a notebook (nbclientExecute) and saves it with its
// outputs, as a notebook people send is; a cell that failed in Jupyter
// fails the save.
const nbclientSave = nbclientExecute + `
failed = [o.ename for c in nb.cells for o in c.get('outputs', []) if o.output_type == 'error']
if failed:
    sys.exit('cells failed in Jupyter: %s' % failed)
nbformat.write(nb, path)
`

// jupyterNotebook writes a notebook of cells beside its data folder and has
// nbclient run and save it. SHELL is bash, as on an analyst's machine.
func jupyterNotebook(t *testing.T, dir, name string, cells []string) string {
	t.Helper()
	py := hosttest.Python(t, "nbclient", "ipykernel", "pandas")
	type cell struct {
		CellType string   `json:"cell_type"`
		Metadata struct{} `json:"metadata"`
		Source   string   `json:"source"`
		Outputs  []any    `json:"outputs"`
		Count    *int     `json:"execution_count"`
	}
	nb := map[string]any{"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]string{"name": "python3", "display_name": "Python 3", "language": "python"}}}
	var cs []cell
	for _, src := range cells {
		cs = append(cs, cell{CellType: "code", Source: src, Outputs: []any{}})
	}
	nb["cells"] = cs
	b, _ := json.Marshal(nb)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", nbclientSave, path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SHELL=/bin/bash", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbclient: %v\n%s", err, out)
	}
	return path
}

// weatherCSV is a small station log: ids, days, temperatures at three
// decimals, humidities at full precision, long notes. edit changes the
// temperature of station 2 on 2012-01-02.
func weatherCSV(edit bool) string {
	var b strings.Builder
	b.WriteString("id,date_time,temp,humidity,station,note\n")
	for id := 1; id <= 3; id++ {
		for day := 1; day <= 10; day++ {
			temp := float64(id*10+day)/7 - 2
			if edit && id == 2 && day == 2 {
				temp += 1.5
			}
			hum := float64((id*37+day*11)%97) / 97
			fmt.Fprintf(&b, "%d,2012-01-%02d,%.3f,%v,station-%d%d,a long note about the weather at station %d that goes on and on for day %d\n",
				id, day, temp, hum, id, day, id, day)
		}
	}
	return b.String()
}

// The notebook people send, with shell lines and the tables Jupyter shows
// (wide, MultiIndex rows and columns, long strings, floats at display
// precision, dates), saved by Jupyter's own client on the host.
var jupyterCells = []string{
	"import pandas as pd",
	"!ls data",
	"!cat data/small.csv\n!head -n 3 data/weather.csv | cut -c1-40",
	"x = !wc -l data/weather.csv\nx",
	"n = len(x)\n!echo rows: $n {n + 1} '$n' $$n-literal",
	"%%bash\necho lines $(wc -l < data/weather.csv)\ntail -n 1 data/small.csv >&2",
	"df = pd.read_csv('data/weather.csv', parse_dates=['date_time'])\ndf.head()",
	"df.set_index(['id', 'date_time'])[['temp', 'humidity']].head(12)",
	"df.pivot_table(index='id', columns=pd.Grouper(key='date_time', freq='5D'), values=['temp', 'humidity'])",
	"wide = df.copy()\nfor i in range(20):\n    wide['w%d' % i] = df.temp * i\nwide.head(3)",
	"df.note.iloc[0]",
	"df.humidity.mean(), df.date_time.max()",
	"df.groupby('id').temp.mean()",
	"print(df[['station', 'temp']].head(3).to_string())",
}

// A notebook with shell lines reruns as Jupyter ran it: each cell's
// outputs are those Jupyter stored (same), on its own data; with one value
// of the data edited, the cells that show it are changed, naming the row,
// the column and both values, and the others stay same.
func TestRerunNotebookAsJupyterRanIt(t *testing.T) {
	sandboxtest.Engine(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "weather.csv"), []byte(weatherCSV(false)), 0o644)
	os.WriteFile(filepath.Join(dir, "data", "small.csv"), []byte("region,revenue\nNorth,3300\nSouth,1380\n"), 0o644)
	nb := jupyterNotebook(t, dir, "weather.ipynb", jupyterCells)

	r := newRun(t, "", "rerun", nb, "--json").withoutModel()
	if code := r.exec(5 * time.Minute); code != 0 {
		t.Fatalf("rerun: exit %d", code)
	}
	var doc struct {
		Status string `json:"status"`
		Cells  []struct {
			Stdout   string   `json:"stdout"`
			Stderr   string   `json:"stderr"`
			Compared string   `json:"compared"`
			Diff     []string `json:"diff"`
			Table    *struct {
				Columns []string `json:"columns"`
			} `json:"table"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout.String())
	}
	if doc.Status != "ok" || len(doc.Cells) != len(jupyterCells) {
		t.Fatalf("status %s, %d cells", doc.Status, len(doc.Cells))
	}
	for i, c := range doc.Cells {
		if c.Compared != "same" {
			t.Errorf("cell %d (%q): %s %q", i+1, jupyterCells[i], c.Compared, c.Diff)
		}
	}
	if got := doc.Cells[4].Stdout; got != "rows: 1 2 $n -literal\n" { // $$n is $n to the shell: empty
		t.Errorf("$n, {n + 1}, '$n' and $$n: %q", got)
	}
	if got := doc.Cells[5].Stderr; got != "South,1380\n" {
		t.Errorf("%%%%bash's stderr: %q", got)
	}
	// The wide table keeps the columns Jupyter shows: the first and last ten.
	if tab := doc.Cells[9].Table; tab == nil || len(tab.Columns) != 22 || tab.Columns[1] != "id" || tab.Columns[11] != "⋯" || tab.Columns[21] != "w19" {
		t.Errorf("the wide table's columns: %+v", tab)
	}

	edited := filepath.Join(t.TempDir(), "weather.csv")
	os.WriteFile(edited, []byte(weatherCSV(true)), 0o644)
	r = newRun(t, "", "rerun", nb, "--map", "data/weather.csv="+edited, "--json").withoutModel()
	if code := r.exec(5 * time.Minute); code != 0 {
		t.Fatalf("rerun on edited data: exit %d", code)
	}
	doc.Cells = nil
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	changed := map[int]string{}
	for i, c := range doc.Cells {
		if c.Compared != "same" {
			changed[i+1] = strings.Join(c.Diff, "\n")
		}
	}
	// 2.643 was 1.143 + 1.5: the MultiIndex row, the pivot's first window,
	// the station's mean (up by 0.15); the rest did not show it.
	want := map[int]string{
		8:  "row 2, 2012-01-02, temp: 2.643, was 1.143",
		9:  "row 2, temp 2012-01-01:",
		13: "- 2 1.6429\n+ 2 1.7929",
	}
	if len(changed) != len(want) {
		t.Errorf("changed cells %v, want %v", changed, want)
	}
	for n, w := range want {
		if !strings.Contains(changed[n], w) {
			t.Errorf("cell %d: %q, want %q", n, changed[n], w)
		}
	}
}

// IPython's rules are the kernel's alone, and a rerun (and -p continuing
// a notebook) asks it before any cell runs: %run other.py in a later cell
// stops it with exit 2, naming the cell, the line and what to do, and no
// cell ran.
func TestRerunRefusedByTheKernelsRules(t *testing.T) {
	sandboxtest.Engine(t)
	dir := t.TempDir()
	nb := filepath.Join(dir, "runs.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "open('ran.txt', 'w').write('cell 1 ran')"},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": "!ls\n%run other.py"}
 ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	out := filepath.Join(t.TempDir(), "rerun")
	r := newRun(t, "", "rerun", nb, "--output-dir", out).withoutModel()
	if code := r.exec(3 * time.Minute); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if want := "runs.ipynb: code cell 2, line 2: %run other.py: it runs another file: paste that file's code into a cell before this one"; !strings.Contains(r.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "ran.txt")); err == nil || strings.Contains(r.stderr.String(), "cell 1") {
		t.Errorf("a cell ran before the refusal:\n%s", r.stderr.String())
	}
	srv := openaitest.New(t)
	r = newRun(t, srv.URL, "-p", "go on", nb)
	if code := r.exec(3 * time.Minute); code != 2 || !strings.Contains(r.stderr.String(), "code cell 2, line 2: %run other.py: it runs another file") {
		t.Errorf("-p: exit %d, want 2 naming the line:\n%s", code, r.stderr.String())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("-p asked the model %d times after the refusal", n)
	}
}

// Jupyter's own options: --allow-errors runs every cell and marks each that
// failed (exit 0, as nbconvert's), without it the first failure stops the
// rerun (exit 1); a cell tagged skip-execution is skipped and said so;
// --timeout takes nbclient's seconds, per cell.
func TestRerunJupyterOptions(t *testing.T) {
	sandboxtest.Engine(t)
	dir := t.TempDir()
	nb := filepath.Join(dir, "options.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "print('one')"},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": "{}['missing']"},
  {"cell_type": "code", "execution_count": 3, "metadata": {"tags": ["skip-execution"]}, "outputs": [], "source": "print('never')"},
  {"cell_type": "code", "execution_count": 4, "metadata": {}, "outputs": [], "source": "!sleep 2; echo slept"},
  {"cell_type": "code", "execution_count": 5, "metadata": {}, "outputs": [], "source": "print('five')"}
 ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	type doc struct {
		Status      string `json:"status"`
		FailedCells []int  `json:"failed_cells"`
		Skipped     []struct {
			CodeCell int    `json:"code_cell"`
			Why      string `json:"why"`
		} `json:"skipped"`
		Cells []struct {
			Stdout string `json:"stdout"`
			Status string `json:"status"`
			Error  *struct {
				Kind string `json:"kind"`
			} `json:"error"`
		} `json:"cells"`
	}
	rerun := func(want int, args ...string) (doc, string) {
		t.Helper()
		r := newRun(t, "", append([]string{"rerun", nb, "--json"}, args...)...).withoutModel()
		if code := r.exec(3 * time.Minute); code != want {
			t.Fatalf("%q: exit %d, want %d", args, code, want)
		}
		var d doc
		if err := json.Unmarshal(r.stdout.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		return d, r.stderr.String()
	}
	d, stderr := rerun(1)
	if d.Status != "failed" || len(d.Cells) != 2 || fmt.Sprint(d.FailedCells) != "[2]" || !strings.Contains(stderr, "the cells after it did not run") {
		t.Errorf("without --allow-errors: %+v\n%s", d, stderr)
	}
	d, stderr = rerun(0, "--allow-errors")
	if len(d.Cells) != 4 || d.Status != "failed" || fmt.Sprint(d.FailedCells) != "[2]" || d.Cells[2].Stdout != "slept\n" || d.Cells[3].Stdout != "five\n" || !strings.Contains(stderr, "every cell ran (--allow-errors); 1 failed") {
		t.Errorf("--allow-errors: %+v\n%s", d, stderr)
	}
	if len(d.Skipped) != 1 || d.Skipped[0].CodeCell != 3 || d.Skipped[0].Why != "tagged skip-execution" || !strings.Contains(stderr, "the notebook's code cell 3 was skipped") {
		t.Errorf("skip-execution: %+v\n%s", d.Skipped, stderr)
	}
	for _, c := range d.Cells {
		if strings.Contains(c.Stdout, "never") {
			t.Error("the cell tagged skip-execution ran")
		}
	}
	r := newRun(t, "", "rerun", nb, "--allow-errors").withoutModel()
	if code := r.exec(3 * time.Minute); code != 0 || !strings.Contains(r.stdout.String(), "**cell 2 · failed: KeyError") || !strings.Contains(r.stdout.String(), "**cell 4 · done") {
		t.Errorf("the report does not mark the failed cell among the others:\n%s", r.stdout.String())
	}
	d, _ = rerun(0, "--allow-errors", "--timeout", "1")
	if fmt.Sprint(d.FailedCells) != "[2 3]" || d.Cells[2].Error == nil || d.Cells[2].Error.Kind != "timeout" || strings.Contains(d.Cells[2].Stdout, "slept") || d.Cells[3].Stdout != "five\n" {
		t.Errorf("--timeout 1: %+v", d)
	}
}
