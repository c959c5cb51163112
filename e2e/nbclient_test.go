package e2e

import (
	"encoding/json"
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

// nbclientExecute executes a notebook in Jupyter's own kernel on the host
// (Debian's python3-nbclient and python3-ipykernel), in its folder.
const nbclientExecute = `
import json, os, sys
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=120, kernel_name='python3', allow_errors=True,
               resources={'metadata': {'path': os.path.dirname(path)}}).execute()
`

// nbclientRun executes a notebook (nbclientExecute) and prints each code
// cell's stdout and errors as JSON.
const nbclientRun = nbclientExecute + `
cells = []
for c in nb.cells:
    if c.cell_type != 'code':
        continue
    out, errs = '', []
    for o in c.outputs:
        if o.output_type == 'stream' and o.name == 'stdout':
            out += o.text
        elif o.output_type == 'error':
            errs.append(o.ename + ': ' + o.evalue)
    cells.append({'stdout': out, 'errors': errs, 'tags': c.metadata.get('tags', [])})
print(json.dumps(cells))
`

// A cell the model writes in IPython's syntax, as models do.
const ipythonCell = `%matplotlib inline
from IPython.display import display, HTML
%time share = pivot.div(pivot.abs().sum())
display(HTML(pivot.to_html()))
print(f"SHARE Q1 {share['Q1'].sum():.3f}, Q2 {share['Q2'].sum():.3f}")`

var numbered = regexp.MustCompile(`(?m)^(VARIANCE|SHARE) .*$`)

// The notebook quarry exports runs in Jupyter: with its input files beside
// it, every cell succeeds in ipykernel and prints the numbers the session
// printed.
func TestExportedNotebookRunsInJupyter(t *testing.T) {
	sandboxtest.Engine(t)
	py := hosttest.Python(t, "nbclient", "ipykernel", "IPython", "pandas", "numpy", "matplotlib")
	home := t.TempDir()
	q1, q2 := writeQuarters(t, t.TempDir())
	srv := openaitest.New(t, openaitest.ToolCalls(varianceCode), openaitest.ToolCalls(ipythonCell))
	srv.Handle(answerFromTool)
	r := newRun(t, srv.URL, "-p", "variance report by department, Q1 vs Q2, and each one's share", q1, q2, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("session: exit %d", code)
	}
	var res struct {
		Session string
		Cells   []struct {
			Stdout string `json:"stdout"`
			Status string `json:"status"`
		} `json:"cells"`
	}
	json.Unmarshal(r.stdout.Bytes(), &res)
	var session strings.Builder
	for _, c := range res.Cells {
		session.WriteString(c.Stdout)
	}
	id := res.Session
	dir := t.TempDir()
	nb := filepath.Join(dir, "variance.ipynb")
	if code := newRun(t, srv.URL, "export", id, "-o", nb).inHome(home).exec(time.Minute); code != 0 {
		t.Fatalf("export: exit %d", code)
	}
	writeQuarters(t, dir)
	want := numbered.FindAllString(session.String(), -1)
	if len(want) != 5 {
		t.Fatalf("the session printed %q", want)
	}

	cmd := exec.Command(py, "-c", nbclientRun, nb)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nbclient: %v\n%s", err, out)
	}
	var cells []struct {
		Stdout string
		Errors []string
	}
	if err := json.Unmarshal(out, &cells); err != nil {
		t.Fatalf("nbclient's report: %v\n%s", err, out)
	}
	var printed strings.Builder
	for i, c := range cells {
		if len(c.Errors) > 0 {
			t.Errorf("code cell %d failed in Jupyter: %q", i+1, c.Errors)
		}
		printed.WriteString(c.Stdout)
	}
	if got := numbered.FindAllString(printed.String(), -1); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Jupyter printed\n%s\nthe session printed\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(printed.String(), "Wall time") {
		t.Errorf("%%time did not run as IPython's:\n%s", printed.String())
	}
}
