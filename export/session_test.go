package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

const varianceCell = `q1 = pd.read_csv('/data/q1.csv')
v = q1.groupby('region')['revenue'].sum().to_frame()
v['share'] = (v.revenue / v.revenue.sum() * 100).round(1)
v.to_csv('/output/variance.csv')
v.revenue.plot.bar(color='#c91f7a')
print('TOTAL', int(v.revenue.sum()))
v`

// realSession records a session against the real sandbox: a table, a
// figure, a failed cell and a file.
func realSession(t *testing.T) *session.Record {
	t.Helper()
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t,
		openaitest.ToolCalls(varianceCell),
		openaitest.ToolCalls("v['Nowhere']"),
		openaitest.Text("North has the largest share: **41.5%** of 216,750."),
	)
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("region,revenue\nNorth,90000\nSouth,26750\nWest,100000\n"), 0o644)
	index := filepath.Join(t.TempDir(), "index")
	s := session.New(session.Options{Engine: e, Index: index, OutputDir: filepath.Join(t.TempDir(), "s"), Config: config.Config{
		Model: "gpt-fake", BaseURL: srv.URL, APIKey: "sk-export-test-0123456789", ToolMode: "native", Timeout: time.Minute}})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	go s.Start(ctx)
	if _, err := s.Attach(ctx, data); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "share of revenue by region?", nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	rec, err := session.LoadRecord(s.OutputDir())
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// A real session's notebook is valid nbformat, and its code runs beside
// the data as it ran in the session: the setup cell and the rewritten
// paths are run as they are, in a folder that holds q1.csv, and print the
// session's numbers. Its HTML page shows them in Chromium.
func TestRealSessionExports(t *testing.T) {
	rec := realSession(t)
	py := nbformatPython(t)
	dir := t.TempDir()
	nbPath := filepath.Join(dir, "analysis.ipynb")
	if _, err := Write(rec, Notebook, nbPath); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", "import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", nbPath).CombinedOutput(); err != nil {
		t.Fatalf("nbformat: %v\n%s", err, out)
	}

	var nb struct {
		Cells []struct {
			CellType string         `json:"cell_type"`
			Source   string         `json:"source"`
			Metadata map[string]any `json:"metadata"`
		} `json:"cells"`
	}
	b, _ := os.ReadFile(nbPath)
	json.Unmarshal(b, &nb)
	// The notebook beside its data: a folder holding q1.csv, the working
	// folder as Jupyter makes it. The sandbox is the Python with pandas.
	e := sandboxtest.Engine(t)
	sb := sandboxtest.Session(t, e, sandbox.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := sb.AddFile(ctx, rec.Inputs()[0].Path); err != nil {
		t.Fatal(err)
	}
	beside := "import os, shutil\nos.makedirs('/tmp/nb', exist_ok=True)\nshutil.copy('/data/q1.csv', '/tmp/nb/q1.csv')\nos.chdir('/tmp/nb')"
	if r, err := sb.Exec(ctx, beside, nil); err != nil || r.Error != nil {
		t.Fatalf("setting up the folder: %v %+v", err, r.Error)
	}
	var stdout string
	for _, c := range nb.Cells {
		if c.CellType != "code" || strings.Contains(fmt.Sprint(c.Metadata["tags"]), "raises-exception") {
			continue
		}
		r, err := sb.Exec(ctx, c.Source, nil)
		if err != nil || r.Error != nil {
			t.Fatalf("notebook cell %q: %v %+v", c.Source, err, r.Error)
		}
		stdout += r.Stdout
	}
	if !strings.Contains(stdout, "TOTAL 216750") {
		t.Errorf("the notebook's code printed %q", stdout)
	}
	if r, _ := sb.Exec(ctx, "print(open('/tmp/nb/variance.csv').read())", nil); !strings.Contains(r.Stdout, "North,90000,41.5") {
		t.Errorf("the notebook did not save beside itself: %q", r.Stdout)
	}

	hits, dom := viewReport(t, hosttest.Tool(t, "chromium"), rec, dir)
	if hits < 2000 {
		t.Errorf("the bar chart is not on the screenshot (%d pixels of its colour)", hits)
	}
	// The session checked the answer's numbers: 41.5% is grounded in cell 1.
	for _, want := range []string{"TOTAL 216750", `<td class="num">41.5</td>`, `<strong><span class="number grounded" title="grounded: cell 1 · `, `>41.5%</span></strong>`, "KeyError"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
