package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// jupyterCell is one code cell as nbclient ran it (nbclientRun).
type jupyterCell struct {
	Stdout string
	Errors []string
}

// runInJupyter writes a notebook of the code cells into a folder holding
// files, runs it with nbclient (allow_errors) and returns what each cell
// printed and raised; the notebook's path in a second copy of the folder,
// untouched, is returned for quarry.
func runInJupyter(t *testing.T, files map[string]string, cells ...string) (string, []jupyterCell) {
	t.Helper()
	py := hosttest.Python(t, "nbclient", "ipykernel", "IPython", "pandas", "numpy", "matplotlib")
	var paths [2]string
	for i := range paths {
		dir := t.TempDir()
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if strings.HasSuffix(name, "/") {
				os.MkdirAll(p, 0o755) // an empty folder
				continue
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var cs []map[string]any
		for _, c := range cells {
			cs = append(cs, map[string]any{"cell_type": "code", "source": c, "metadata": map[string]any{}, "outputs": []any{}, "execution_count": nil})
		}
		b, _ := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{
			"kernelspec": map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"}}, "cells": cs})
		paths[i] = filepath.Join(dir, "nb.ipynb")
		os.WriteFile(paths[i], b, 0o644)
	}
	cmd := exec.Command(py, "-c", nbclientRun, paths[0])
	cmd.Dir = filepath.Dir(paths[0])
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nbclient: %v\n%s", err, out)
	}
	var got []jupyterCell
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("nbclient's report: %v\n%s", err, out)
	}
	return paths[1], got
}

var printedTag = regexp.MustCompile(`(?m)^[A-Z]+ .*$`)

// jupyterErrors are the code cells that raised in Jupyter, each with the
// exception's type: "3 FileNotFoundError".
func jupyterErrors(cells []jupyterCell) []string {
	var out []string
	for i, c := range cells {
		for _, e := range c.Errors {
			out = append(out, strings.Join([]string{itoa(i + 1), strings.SplitN(e, ":", 2)[0]}, " "))
		}
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// rerunErrors are the rerun's failed cells, as jupyterErrors.
func rerunErrors(doc rerunDoc) []string {
	var out []string
	for _, c := range doc.Cells {
		if c.Error != nil {
			out = append(out, itoa(c.Cell)+" "+c.Error.Type)
		}
	}
	sort.Strings(out)
	return out
}

func printedLines(s string) string { return strings.Join(printedTag.FindAllString(s, -1), "\n") }

// A notebook that writes files and reads them back in later cells reruns
// as Jupyter runs it, for every way of writing (a pandas writer, a shell
// redirect, cp, %%writefile, open(..., 'w'), savefig), also with a leftover
// of an earlier run in its folder and a !rm after the read: nothing is
// asked for, every cell prints what it printed in Jupyter.
func TestRerunNotebookThatWritesItsOwnFiles(t *testing.T) {
	sandboxtest.Engine(t)
	files := map[string]string{
		"examples/ex1.csv":      "a,b,c\n1,2,3\n5,6,7\n9,10,11\n",
		"examples/frame_pickle": "a leftover of an earlier run, not a pickle",
		"results/":              "",
	}
	nb, jupyter := runInJupyter(t, files,
		"import os\nimport pandas as pd\nframe = pd.read_csv('examples/ex1.csv')\nprint('ROWS', len(frame))",
		"frame.to_pickle('examples/frame_pickle')",
		"print('PICKLE', len(pd.read_pickle('examples/frame_pickle')))",
		"!rm examples/frame_pickle",
		"frame.to_csv('results/out.csv', index=False)\n!cp results/out.csv results/copy.csv",
		"print('COPY', len(pd.read_csv('results/copy.csv')))",
		"%%writefile notes.txt\nquarter three",
		"print('NOTES', open('notes.txt').read().strip())",
		"with open('log.csv', 'w') as f:\n    f.write('x,y\\n1,2\\n')\n!echo 3,4 >> log.csv",
		"print('LOG', len(pd.read_csv('log.csv')))",
		"import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig('results/fig.png')",
		"print('FIG', os.path.getsize('results/fig.png') > 0)",
	)
	if errs := jupyterErrors(jupyter); len(errs) > 0 {
		t.Fatalf("the notebook fails in Jupyter: %q", errs)
	}
	var want strings.Builder
	for _, c := range jupyter {
		want.WriteString(c.Stdout)
	}
	srv := openaitest.New(t)
	r := newRun(t, srv.URL, "rerun", nb, "--json", "--output-dir", filepath.Join(t.TempDir(), "out")).withoutModel()
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun: exit %d, want 0 as in Jupyter\n%s", code, r.stderr.String())
	}
	var doc rerunDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, c := range doc.Cells {
		got.WriteString(c.Stdout)
	}
	if g, w := printedLines(got.String()), printedLines(want.String()); g != w || !strings.Contains(w, "FIG True") {
		t.Errorf("the rerun printed\n%s\nJupyter printed\n%s", g, w)
	}
	if len(doc.Inputs) != 1 || doc.Inputs[0].Name != "ex1.csv" {
		t.Errorf("inputs %+v, want examples/ex1.csv alone: the files the notebook writes are its own", doc.Inputs)
	}
	if strings.Contains(r.stderr.String(), "not there") {
		t.Errorf("a file the notebook writes was taken for a missing input:\n%s", r.stderr.String())
	}
}

// A notebook whose late cell reads a file that is not there: the rerun
// names it before it runs and then runs as Jupyter does, stopping at the
// earlier cell that fails first; with --allow-errors it runs every cell,
// the reading cell failing with the kernel's own FileNotFoundError,
// recorded in the JSON and the output notebook; --strict-inputs refuses
// the run before anything runs.
func TestRerunNotebookWithAMissingInput(t *testing.T) {
	sandboxtest.Engine(t)
	nb, jupyter := runInJupyter(t, map[string]string{"q1.csv": "region,revenue\nNorth,100\nSouth,80\n"},
		"import pandas as pd\ndf = pd.read_csv('q1.csv')\nprint('ROWS', len(df))",
		"print('TOTAL', df['discount'].sum())",
		"fec = pd.read_csv('datasets/fec/P00000001-ALL.csv')\nprint('FEC', len(fec))",
		"print('AFTER', df['revenue'].sum())",
	)
	errs := jupyterErrors(jupyter)
	if strings.Join(errs, ",") != "2 KeyError,3 FileNotFoundError" {
		t.Fatalf("Jupyter: %q, want cell 2 KeyError and cell 3 FileNotFoundError", errs)
	}
	srv := openaitest.New(t)

	r := newRun(t, srv.URL, "rerun", nb, "--json").withoutModel()
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("rerun: exit %d, want 1 (cell 2 fails first, as in Jupyter)\n%s", code, r.stderr.String())
	}
	var doc rerunDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := rerunErrors(doc); strings.Join(got, ",") != "2 KeyError" || len(doc.Cells) != 2 {
		t.Errorf("failed %q after %d cells, want cell 2's KeyError to stop it, as Jupyter's run-all stops", got, len(doc.Cells))
	}
	for _, want := range []string{"code cell 3 reads datasets/fec/P00000001-ALL.csv", "--map datasets/fec/P00000001-ALL.csv=FILE"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
		}
	}

	out := filepath.Join(t.TempDir(), "out")
	r = newRun(t, srv.URL, "rerun", nb, "--allow-errors", "--json", "--format", "ipynb", "--output-dir", out).withoutModel()
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun --allow-errors: exit %d, want 0\n%s", code, r.stderr.String())
	}
	doc = rerunDoc{}
	var missing struct {
		MissingInputs []struct {
			Path     string `json:"path"`
			CodeCell int    `json:"code_cell"`
		} `json:"missing_inputs"`
	}
	json.Unmarshal(r.stdout.Bytes(), &doc)
	json.Unmarshal(r.stdout.Bytes(), &missing)
	if got := rerunErrors(doc); strings.Join(got, ",") != strings.Join(errs, ",") {
		t.Errorf("rerun --allow-errors failed %q, Jupyter %q", got, errs)
	}
	var printed, want strings.Builder
	for _, c := range doc.Cells {
		printed.WriteString(c.Stdout)
	}
	for _, c := range jupyter {
		want.WriteString(c.Stdout)
	}
	if g, w := printedLines(printed.String()), printedLines(want.String()); g != w {
		t.Errorf("printed\n%s\nJupyter\n%s", g, w)
	}
	if len(missing.MissingInputs) != 1 || missing.MissingInputs[0].Path != "datasets/fec/P00000001-ALL.csv" || missing.MissingInputs[0].CodeCell != 3 {
		t.Errorf("missing_inputs %+v", missing.MissingInputs)
	}
	if b, err := os.ReadFile(doc.Report); err != nil || !strings.Contains(string(b), "FileNotFoundError") {
		t.Errorf("the output notebook %s does not record the FileNotFoundError: %v", doc.Report, err)
	}

	r = newRun(t, srv.URL, "rerun", nb, "--strict-inputs").withoutModel()
	if code := r.exec(time.Minute); code != 2 || !strings.Contains(r.stderr.String(), "P00000001-ALL.csv") {
		t.Errorf("--strict-inputs: exit %d, want 2 naming the file\n%s", code, r.stderr.String())
	}
}
