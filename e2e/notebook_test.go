package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// testdata/notebook is a notebook as analysts write them, run and saved by
// Jupyter (nbclient) with its outputs: magics at the top, data in ./data/
// read by relative paths (a CSV, a space-separated log without an
// extension, a SQLite file), a text file opened with open(), display() of
// an HTML table, a Styler, %time, a help line, a file written, a figure,
// and a last cell that fails in Jupyter too (the column it reads is not
// in the data).

// copyNotebook copies testdata/notebook into a new folder and returns the
// notebook's path there.
func copyNotebook(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk("testdata/notebook", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/notebook", p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "sales-review.ipynb")
}

// plainPython runs the notebook's code cells as plain Python on the host
// (testdata/plain_python.py), the last one replaced by more when given.
func plainPython(t *testing.T, nb string, more ...string) string {
	t.Helper()
	// Styler (jinja2) as well: the notebooks people wrote use it.
	py := hosttest.Python(t, "pandas", "numpy", "matplotlib", "jinja2")
	script, _ := filepath.Abs(filepath.Join("testdata", "plain_python.py"))
	out, _ := exec.Command(py, append([]string{script, nb}, more...)...).CombinedOutput() // the last cell fails, as in Jupyter
	return string(out)
}

// tagged are the lines the notebook prints about its data.
var tagged = regexp.MustCompile(`(?m)^(LOG|SQL|NOTES|TOTAL) .*$`)

// A notebook people wrote reruns as Jupyter runs it: its magics run, its
// relative paths find the files in its folder whatever their kind, what it
// writes lands in the rerun's folder, and the numbers are those of its code
// run as plain Python; the cell that fails in Jupyter fails here too, and
// is named.
func TestRerunNotebookPeopleWrote(t *testing.T) {
	sandboxtest.Engine(t)
	nb := copyNotebook(t)
	plain := tagged.FindAllString(plainPython(t, nb), -1)
	if len(plain) != 6 {
		t.Fatalf("plain Python printed %q", plain)
	}
	srv := openaitest.New(t)
	out := filepath.Join(t.TempDir(), "out")
	r := newRun(t, srv.URL, "rerun", nb, "--json", "--output-dir", out).withoutModel()
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("rerun: exit %d, want 1 (the last cell fails, as in Jupyter)\n%s", code, r.stderr.String())
	}
	var doc rerunDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	for _, c := range doc.Cells {
		printed.WriteString(c.Stdout)
	}
	if got := tagged.FindAllString(printed.String(), -1); strings.Join(got, "\n") != strings.Join(plain, "\n") {
		t.Errorf("the rerun printed\n%s\nplain Python\n%s", strings.Join(got, "\n"), strings.Join(plain, "\n"))
	}
	if len(doc.Cells) != 7 || doc.FailedCell == nil || *doc.FailedCell != 7 || doc.Cells[6].Error == nil || doc.Cells[6].Error.Type != "KeyError" {
		t.Fatalf("cells %+v, want 7 with the last failing on a KeyError", doc.Cells)
	}
	if !strings.Contains(r.stderr.String(), "cell 7 failed: KeyError: 'discount'") {
		t.Errorf("stderr does not name the failed cell:\n%s", r.stderr.String())
	}
	names := map[string]bool{}
	for _, in := range doc.Inputs {
		names[in.Name] = true
	}
	for _, n := range []string{"sales.csv", "access_log", "shop.sqlite", "notes.txt"} {
		if !names[n] {
			t.Errorf("input %s missing from %+v", n, doc.Inputs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "by_region.csv")); err != nil || !strings.Contains(string(b), "North,3300") {
		t.Errorf("the file the code wrote: %q %v", b, err)
	}
	if len(doc.Cells[5].Figures) != 1 {
		t.Errorf("the figure: %+v", doc.Cells[5])
	}
	for _, n := range []string{"data", "notes.txt"} {
		if _, err := os.Lstat(filepath.Join(out, n)); err == nil {
			t.Errorf("%s: an input came back as an output", n)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(nb), "by_region.csv")); err == nil {
		t.Error("the rerun wrote into the notebook's folder")
	}
	for _, c := range doc.Cells {
		if c.Compared != "same" {
			t.Errorf("cell %d on the notebook's own data: compared %q %q, want same", c.Cell, c.Compared, c.Diff)
		}
	}

	// Next month's file: what moved is named, cell by cell.
	feb := filepath.Join(t.TempDir(), "feb.csv")
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(nb), "data", "sales.csv"))
	os.WriteFile(feb, []byte(strings.Replace(string(b), "North,widget,10,1200", "North,widget,10,1500", 1)), 0o644)
	r = newRun(t, srv.URL, "rerun", nb, "--map", "data/sales.csv="+feb, "--json").withoutModel()
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("rerun on February: exit %d\n%s", code, r.stderr.String())
	}
	doc = rerunDoc{}
	json.Unmarshal(r.stdout.Bytes(), &doc)
	want := map[int]string{2: "row 0, revenue: 1500, was 1200", 5: "row North, revenue: 3600, was 3,300", 6: "+ TOTAL 7920 MEAN 1320.0"}
	for _, c := range doc.Cells {
		switch w, moved := want[c.Cell]; {
		case moved && (c.Compared != "changed" || !strings.Contains(strings.Join(c.Diff, "\n"), w)):
			t.Errorf("cell %d: %q %q, want changed: %s", c.Cell, c.Compared, c.Diff, w)
		case !moved && c.Compared != "same":
			t.Errorf("cell %d: %q %q, want same", c.Cell, c.Compared, c.Diff)
		}
	}
	if !strings.Contains(r.stderr.String(), "compared with the notebook's outputs: 4 same, 3 changed, 0 failing now") {
		t.Errorf("stderr lacks the comparison's summary:\n%s", r.stderr.String())
	}

	// A file without the column a cell groups by: that cell fails now.
	os.WriteFile(feb, []byte(strings.Replace(string(b), "region", "area", 1)), 0o644)
	r = newRun(t, srv.URL, "rerun", nb, "--map", "sales.csv="+feb, "--json").withoutModel()
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("rerun without the column: exit %d", code)
	}
	doc = rerunDoc{}
	json.Unmarshal(r.stdout.Bytes(), &doc)
	if last := doc.Cells[len(doc.Cells)-1]; last.Cell != 5 || last.Compared != "new" || !strings.Contains(strings.Join(last.Diff, ""), "fails now: KeyError") {
		t.Errorf("the cell that fails now: %+v", last)
	}
}

// A notebook continued with the model: its cells run first (the one that
// fails in Jupyter fails here and stops them, as Jupyter's "run all"
// does), the model gets its cells, outputs and text, its next cell uses
// the notebook's variables, and the exported notebook starts with the
// notebook's cells.
func TestContinueNotebookHeadless(t *testing.T) {
	sandboxtest.Engine(t)
	nb := copyNotebook(t)
	home := t.TempDir()
	next := "print('NEXT', by_region['North'], len(log), orders['total'].sum())"
	want := regexp.MustCompile(`(?m)^NEXT .*$`).FindString(plainPython(t, nb, next))
	if want == "" {
		t.Fatal("plain Python printed no NEXT line")
	}
	srv := openaitest.New(t, openaitest.ToolCalls(next))
	srv.Handle(func(req openaitest.Request) openaitest.Reply { return openaitest.Text("North made 3300.") })
	r := newRun(t, srv.URL, "-p", "which region made most?", nb, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "the notebook's cell 7 of 7 failed: KeyError: 'discount'") {
		t.Errorf("stderr does not name the notebook's failed cell:\n%s", r.stderr.String())
	}
	var res struct {
		Session string
		Cells   []struct {
			Stdout string `json:"stdout"`
		} `json:"cells"`
	}
	json.Unmarshal(r.stdout.Bytes(), &res)
	if len(res.Cells) != 1 || res.Cells[0].Stdout != want+"\n" {
		t.Fatalf("the model's cell: %+v", res.Cells)
	}
	first := srv.Requests()[0]
	for _, want := range append(tagged.FindAllString(plainPython(t, nb), -1), "continues the notebook sales-review.ipynb", "Q1 sales review", "KeyError") {
		if !first.Contains(want) {
			t.Errorf("the model was not given %q", want)
		}
	}
	out := filepath.Join(t.TempDir(), "continued.ipynb")
	if code := newRun(t, srv.URL, "export", res.Session, "-o", out).inHome(home).exec(time.Minute); code != 0 {
		t.Fatal("export failed")
	}
	b, _ := os.ReadFile(out)
	text := string(b)
	i, j := strings.Index(text, "%matplotlib inline"), strings.Index(text, "print('NEXT'")
	if i < 0 || j < 0 || i > j || !strings.Contains(text, "pd.read_csv('./data/sales.csv'") {
		t.Errorf("the exported notebook does not start with the notebook's cells (at %d, the model's at %d)", i, j)
	}
}

// A notebook the chat or -p cannot continue is bad input, named before
// anything starts: exit 2.
func TestContinueNotebookBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.ipynb")
	os.WriteFile(broken, []byte("not json"), 0o644)
	elsewhere := filepath.Join(t.TempDir(), "ledger.csv")
	os.WriteFile(elsewhere, []byte("a\n1\n"), 0o644)
	reaches := filepath.Join(dir, "reaches.ipynb")
	os.WriteFile(reaches, []byte(strings.NewReplacer("q1.csv", elsewhere, "q2.csv", elsewhere).Replace(handNotebook)), 0o644)
	later := filepath.Join(dir, "later.ipynb")
	os.WriteFile(later, []byte(handNotebook), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "go on", broken}, "broken.ipynb is not a Jupyter notebook"},
		{[]string{"-p", "go on", reaches}, "ledger.csv: the notebook reads it from " + elsewhere + ", outside the notebook's folder"},
		{[]string{"--resume", reaches}, "a notebook is continued by naming it alone"},
		{[]string{"-p", "go on", elsewhere, later}, "name the notebook first"},
		{[]string{"-p", "go on", later, "--strict-inputs"}, "--map q1.csv=FILE"},
		{[]string{"-p", "go on", elsewhere, "--strict-inputs"}, "--strict-inputs goes with a notebook"},
	} {
		r := newRun(t, "", c.args...).withoutModel()
		if code := r.exec(time.Minute); code != 2 {
			t.Errorf("%q: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%q: stderr lacks %q:\n%s", c.args, c.want, r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "starting the sandbox") {
			t.Errorf("%q: the sandbox started", c.args)
		}
	}
}

// A notebook cell that ends the kernel restarts the sandbox, whose working
// folder starts empty: the notebook's files are linked again, so the
// model's next cell reads them at the notebook's paths.
func TestContinueNotebookAfterTheKernelDied(t *testing.T) {
	sandboxtest.Engine(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("kept after the restart\n"), 0o644)
	nb := filepath.Join(dir, "dies.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": "notes = open('notes.txt').read()"},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": "import os\nos._exit(3)"}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	srv := openaitest.New(t, openaitest.ToolCalls("print('AFTER', open('notes.txt').read().strip())"))
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("done") })
	r := newRun(t, srv.URL, "-p", "read the notes again", nb, "--json")
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	var res struct {
		Cells []struct {
			Stdout string                    `json:"stdout"`
			Error  *struct{ Message string } `json:"error"`
		} `json:"cells"`
	}
	json.Unmarshal(r.stdout.Bytes(), &res)
	if len(res.Cells) != 1 || res.Cells[0].Stdout != "AFTER kept after the restart\n" {
		t.Errorf("the model's cell after the restart: %+v\n%s", res.Cells, r.stderr.String())
	}
}
