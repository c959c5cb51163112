package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Next quarter's files: other names, other numbers.
const q3CSV = `department,budget,actual
Sales,120000,126000
Marketing,60000,57000
Engineering,220000,231000
`

const q4CSV = `department,budget,actual
Sales,130000,117000
Marketing,65000,70200
Engineering,230000,230000
`

var wantRerunLines = []string{
	"VARIANCE Engineering: Q1 +11000, Q2 +0",
	"VARIANCE Marketing: Q1 -3000, Q2 +5200",
	"VARIANCE Sales: Q1 +6000, Q2 -13000",
	"VARIANCE TOTAL: Q1 +14000, Q2 -7800",
}

// varianceSession records the variance report of q1 and q2 in home and
// returns its id.
func varianceSession(t *testing.T, home string, extra ...openaitest.Reply) string {
	t.Helper()
	q1, q2 := writeQuarters(t, t.TempDir())
	srv := openaitest.New(t, append([]openaitest.Reply{openaitest.ToolCalls(varianceCode)}, extra...)...)
	srv.Handle(answerFromTool)
	r := newRun(t, srv.URL, "-p", "variance report by department, Q1 vs Q2", q1, q2, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("session: exit %d", code)
	}
	var res struct{ Session string }
	json.Unmarshal(r.stdout.Bytes(), &res)
	return res.Session
}

func writeNextQuarters(t *testing.T, dir string) (q3, q4 string) {
	t.Helper()
	q3, q4 = filepath.Join(dir, "q3.csv"), filepath.Join(dir, "q4.csv")
	os.WriteFile(q3, []byte(q3CSV), 0o644)
	os.WriteFile(q4, []byte(q4CSV), 0o644)
	return q3, q4
}

type rerunDoc struct {
	Session    string `json:"session"`
	OutputDir  string `json:"output_dir"`
	Source     string `json:"source"`
	Report     string `json:"report"`
	Status     string `json:"status"`
	FailedCell *int   `json:"failed_cell"`
	Inputs     []struct {
		Name           string   `json:"name"`
		Path           string   `json:"path"`
		MissingColumns []string `json:"missing_columns"`
		NewColumns     []string `json:"new_columns"`
	} `json:"inputs"`
	Cells []struct {
		Cell     int      `json:"cell"`
		Compared string   `json:"compared"`
		Diff     []string `json:"diff"`
		Stdout   string   `json:"stdout"`
		Figures  []string `json:"figures"`
		Status   string   `json:"status"`
		Error    *struct {
			Type      string `json:"type"`
			Traceback string `json:"traceback"`
		} `json:"error"`
	} `json:"cells"`
}

// The variance analysis reruns on next quarter's two files with no model
// server and no key: the new numbers come out, with a figure and a report.
func TestRerunVarianceOnNewQuarters(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	id := varianceSession(t, home)
	q3, q4 := writeNextQuarters(t, t.TempDir())

	r := newRun(t, "", "rerun", id, q3, q4, "--json").inHome(home).withoutModel()
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, r.stdout.String())
	}
	var doc rerunDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("rerun --json: %v\n%s", err, r.stdout.String())
	}
	if doc.Status != "ok" || doc.Source != id || len(doc.Cells) != 1 || doc.Session == id {
		t.Fatalf("rerun %+v", doc)
	}
	for _, want := range wantRerunLines {
		if !strings.Contains(doc.Cells[0].Stdout, want) {
			t.Errorf("rerun output lacks %q:\n%s", want, doc.Cells[0].Stdout)
		}
	}
	if len(doc.Inputs) != 2 || doc.Inputs[0].Name != "q1.csv" || doc.Inputs[0].Path != q3 || len(doc.Inputs[0].MissingColumns) != 0 {
		t.Errorf("inputs %+v", doc.Inputs)
	}
	if len(doc.Cells[0].Figures) != 1 {
		t.Errorf("figures %v", doc.Cells[0].Figures)
	} else if b, err := os.ReadFile(doc.Cells[0].Figures[0]); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("figure: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(doc.OutputDir, "variance.csv"))
	if err != nil || !strings.Contains(string(b), "Sales,6000,-13000") {
		t.Errorf("variance.csv %q %v", b, err)
	}
	if report, err := os.ReadFile(doc.Report); err != nil || !strings.Contains(string(report), "VARIANCE Sales: Q1 +6000, Q2 -13000") {
		t.Errorf("report %s: %v", doc.Report, err)
	}

	md := newRun(t, "", "rerun", id, "--map", "q1.csv="+q3, "--map", "q2.csv="+q4, "--format", "html").inHome(home).withoutModel()
	if code := md.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun --map: exit %d", code)
	}
	out := md.stdout.String()
	if !strings.Contains(out, "VARIANCE Sales: Q1 +6000, Q2 -13000") || !strings.Contains(out, "## 1. variance report by department, Q1 vs Q2") {
		t.Errorf("Markdown report on stdout:\n%s", out)
	}
	if !strings.Contains(md.stderr.String(), "report.html are in") {
		t.Errorf("stderr:\n%s", md.stderr.String())
	}
	if list := sessionsJSON(t, home); len(list) != 3 {
		t.Errorf("the reruns are not listed as sessions: %+v", list)
	}
}

// A new file without a column the analysis needs: the comparison says so
// before anything runs, the cell that needs it fails, the report names it
// with its traceback, the cells after it do not run: exit 1.
func TestRerunStopsAtFailedCell(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	id := varianceSession(t, home, openaitest.ToolCalls(`print("AFTER", len(df))`))
	q3, q4 := writeNextQuarters(t, t.TempDir())
	os.WriteFile(q3, []byte("department,budget,spent\nSales,1,2\n"), 0o644)
	os.WriteFile(q4, []byte("department,budget,spent\nSales,3,4\n"), 0o644)
	r := newRun(t, "", "rerun", id, q3, q4, "--json").inHome(home).withoutModel()
	if code := r.exec(3 * time.Minute); code != 1 {
		t.Fatalf("rerun: exit %d, want 1", code)
	}
	var doc rerunDoc
	json.Unmarshal(r.stdout.Bytes(), &doc)
	if doc.Status != "failed" || doc.FailedCell == nil || *doc.FailedCell != 1 || len(doc.Cells) != 1 {
		t.Fatalf("rerun %+v", doc)
	}
	if e := doc.Cells[0].Error; e == nil || e.Type != "KeyError" || !strings.Contains(e.Traceback, "actual") {
		t.Errorf("failed cell %+v", doc.Cells[0])
	}
	if in := doc.Inputs[0]; strings.Join(in.MissingColumns, ",") != "actual" || strings.Join(in.NewColumns, ",") != "spent" {
		t.Errorf("comparison %+v", in)
	}
	stderr := r.stderr.String()
	for _, want := range []string{"q1.csv: missing column: actual", "q1.csv: new column: spent", "cell 1 failed: KeyError", "the cells after it did not run"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(r.stdout.String(), "AFTER") {
		t.Error("a cell after the failed one ran")
	}
}

const handNotebook = `{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": "# Quarterly variance"},
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
   "source": ["import pandas as pd\n", "a = pd.read_csv('q1.csv')\n", "b = pd.read_csv('q2.csv')\n"]},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
   "source": ["for name, df in [('A', a), ('B', b)]:\n", "    print('NB', name, int((df.actual - df.budget).sum()))\n", "(b.actual - b.budget).plot.bar()"]}
 ],
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
 "nbformat": 4, "nbformat_minor": 4
}`

// A notebook written by hand reruns beside its data, or on files given in
// place of its own; the notebook quarry exports reruns like the session.
// No request reaches the model server.
func TestRerunNotebooks(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	srv := openaitest.New(t)
	dir := t.TempDir()
	writeQuarters(t, dir)
	nb := filepath.Join(dir, "variance.ipynb")
	os.WriteFile(nb, []byte(handNotebook), 0o644)
	r := newRun(t, srv.URL, "rerun", nb, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun of a hand-written notebook: exit %d", code)
	}
	var doc rerunDoc
	json.Unmarshal(r.stdout.Bytes(), &doc)
	if len(doc.Cells) != 2 || !strings.Contains(doc.Cells[1].Stdout, "NB A 7750\nNB B 15800") || len(doc.Cells[1].Figures) != 1 {
		t.Fatalf("rerun %+v", doc)
	}
	q3, q4 := writeNextQuarters(t, t.TempDir())
	r = newRun(t, srv.URL, "rerun", nb, q3, q4, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun on new files: exit %d", code)
	}
	json.Unmarshal(r.stdout.Bytes(), &doc)
	if !strings.Contains(doc.Cells[1].Stdout, "NB A 14000\nNB B -7800") {
		t.Errorf("rerun on new files: %+v", doc.Cells)
	}

	id := varianceSession(t, home)
	exported := filepath.Join(t.TempDir(), "analysis.ipynb")
	ex := newRun(t, srv.URL, "export", id, "-o", exported).inHome(home)
	if code := ex.exec(time.Minute); code != 0 {
		t.Fatalf("export: exit %d", code)
	}
	before := len(srv.Requests())
	r = newRun(t, srv.URL, "rerun", exported, q3, q4, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("rerun of the exported notebook: exit %d", code)
	}
	json.Unmarshal(r.stdout.Bytes(), &doc)
	if len(doc.Cells) != 2 || !strings.Contains(doc.Cells[1].Stdout, "VARIANCE Sales: Q1 +6000, Q2 -13000") {
		t.Errorf("rerun of the exported notebook: %+v", doc.Cells)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("the reruns sent %d requests to the model server", n)
	}
}

// Each bad input is named, before any sandbox starts, with exit 2.
func TestRerunBadInput(t *testing.T) {
	sandboxtest.Engine(t)
	home := t.TempDir()
	id := varianceSession(t, home)
	dir := t.TempDir()
	q3, q4 := writeNextQuarters(t, dir)
	elsewhere := filepath.Join(t.TempDir(), "ledger.csv")
	os.WriteFile(elsewhere, []byte("a,b\n1,2\n"), 0o644)
	reaches := filepath.Join(dir, "reaches.ipynb")
	os.WriteFile(reaches, []byte(strings.NewReplacer("q1.csv", "q3.csv", "q2.csv", elsewhere).Replace(handNotebook)), 0o644)
	broken := filepath.Join(dir, "broken.ipynb")
	os.WriteFile(broken, []byte("{"), 0o644)
	v3 := filepath.Join(dir, "old.ipynb")
	os.WriteFile(v3, []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [{"cell_type": "code", "input": "1"}]}]}`), 0o644)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "empty.csv"), nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"20200101-000000-000000"}, `no such session: "20200101-000000-000000"`},
		{[]string{id, q3, q4, q3}, "3 files given for 2 inputs (q1.csv, q2.csv)"},
		{[]string{id, filepath.Join(dir, "nope.csv")}, "nope.csv: no such file"},
		{[]string{id, filepath.Join(dir, "empty.csv")}, "empty.csv: is empty"},
		{[]string{id, "--map", "q9.csv=" + q3}, "there is no input q9.csv to replace"},
		{[]string{id, q3, "--map", "q1.csv=" + q4}, "q1.csv is given twice"},
		{[]string{id, q3, q4, "--output-dir", full}, "is not empty"},
		{[]string{id, q3, q4, "--format", "pdf"}, "--format pdf: use md, html or ipynb"},
		{[]string{broken}, "is not a Jupyter notebook"},
		{[]string{v3}, "old.ipynb is nbformat 3: quarry reruns nbformat 4 notebooks"},
		{[]string{reaches}, "ledger.csv: the notebook reads it from " + elsewhere + ", outside the notebook's folder"},
		{[]string{filepath.Join(dir, "variance.ipynb")}, "variance.ipynb: no such file"},
		{[]string{}, "name what to rerun"},
	} {
		r := newRun(t, "", append([]string{"rerun"}, c.args...)...).inHome(home).withoutModel()
		if code := r.exec(time.Minute); code != 2 {
			t.Errorf("%q: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%q: stderr lacks %q:\n%s", c.args, c.want, r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "starting the sandbox") {
			t.Errorf("%q: the sandbox started before the bad input was found", c.args)
		}
	}
}
