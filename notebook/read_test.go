package notebook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const handWritten = `{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Q2 variance\n"]},
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
   "source": ["import pandas as pd\n", "q1 = pd.read_csv('q1_sales.csv')\n", "q2 = pd.read_csv(\"data/q2_sales.csv\")\n"]},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
   "source": "v = q2.set_index('region').revenue - q1.set_index('region').revenue\nv.to_csv('variance.csv')\nv"}
 ],
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
 "nbformat": 4, "nbformat_minor": 2
}`

// A notebook written by hand reruns: the files its code reads become the
// inputs (found beside the notebook by default), at the relative paths the
// code names, which run unchanged.
func TestReadHandWrittenNotebook(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "variance.ipynb")
	os.WriteFile(path, []byte(handWritten), 0o644)
	nb, err := ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	if nb.Quarry || len(nb.Turns) != 1 || len(nb.Turns[0].Cells) != 2 {
		t.Fatalf("%+v", nb)
	}
	if c := nb.Turns[0].Cells[0].Code; !strings.Contains(c, "pd.read_csv('q1_sales.csv')") || !strings.Contains(c, `pd.read_csv("data/q2_sales.csv")`) {
		t.Errorf("relative reads changed: %s", c)
	}
	if c := nb.Turns[0].Cells[1].Code; !strings.Contains(c, "v.to_csv('variance.csv')") {
		t.Errorf("a write was relocated: %s", c)
	}
	if len(nb.Inputs) != 2 || nb.Inputs[0].Path != filepath.Join(dir, "q1_sales.csv") || nb.Inputs[1].Path != filepath.Join(dir, "data", "q2_sales.csv") || nb.Inputs[1].Name != "q2_sales.csv" ||
		nb.Inputs[0].Rel != "q1_sales.csv" || nb.Inputs[1].Rel != "data/q2_sales.csv" {
		t.Errorf("inputs %+v", nb.Inputs)
	}
}

func TestReadNotebookRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	url := strings.Replace(handWritten, "q1_sales.csv", "https://example.com/q1.csv", 1)
	for _, c := range []struct{ path, want string }{
		{write("url.ipynb", url), "code cell 1: it reads https://example.com/q1.csv from the network"},
		{write("broken.ipynb", `{"cells": [`), "is not a Jupyter notebook"},
		{write("v3.ipynb", `{"nbformat": 3, "worksheets": []}`), "is nbformat 3"},
		{write("empty.ipynb", `{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "x", "metadata": {}}], "metadata": {}}`), "has no code cells"},
		{filepath.Join(dir, "nope.ipynb"), "nope.ipynb: no such file"},
	} {
		_, err := ReadNotebook(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// IPython's syntax is the kernel's to refuse (sandbox/ipython_test.go), not
// the reader's; a cell tagged skip-execution is left out and named, as
// nbclient skips it.
func TestReadNotebookLeavesIPythonToTheKernel(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(handWritten, `"v = q2.set_index`, `"%run other.py\n!ls data\nv = q2.set_index`, 1)
	src = strings.Replace(src, `{"cell_type": "code", "execution_count": 1, "metadata": {}`, `{"cell_type": "code", "execution_count": 1, "metadata": {"tags": ["skip-execution"]}`, 1)
	path := filepath.Join(dir, "nb.ipynb")
	os.WriteFile(path, []byte(src), 0o644)
	nb, err := ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Turns) != 1 || len(nb.Turns[0].Cells) != 1 || nb.Turns[0].Cells[0].Num != 2 || !strings.HasPrefix(nb.Turns[0].Cells[0].Code, "%run other.py\n!ls data\n") {
		t.Errorf("cells %+v, want code cell 2 as written", nb.Turns)
	}
	if len(nb.Skipped) != 1 || nb.Skipped[0].Num != 1 || nb.Skipped[0].Why != "tagged skip-execution" || len(nb.Stored) != 1 {
		t.Errorf("skipped %+v, stored %d", nb.Skipped, len(nb.Stored))
	}
}

// A notebook is a file that travels: the host files its code (or its
// metadata) names outside its own folder are not read unless the user names
// them, and neither is a link beside it that leads out. What it reads inside
// its folder is its data.
func TestReadNotebookReadsNothingOutsideItsFolderUnasked(t *testing.T) {
	dir := t.TempDir()
	secrets := t.TempDir()
	os.WriteFile(filepath.Join(secrets, "config.json"), []byte(`{"auths": {"x": "secret"}}`), 0o600)
	os.WriteFile(filepath.Join(secrets, "keys.csv"), []byte("key\nsecret\n"), 0o600)
	os.Symlink(filepath.Join(secrets, "keys.csv"), filepath.Join(dir, "linked.csv"))
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "q1.csv"), []byte("region,revenue\n"), 0o644)
	src := strings.NewReplacer("ABS", filepath.Join(secrets, "config.json"), "REL", "../"+filepath.Base(secrets)+"/keys.csv").Replace(`{
 "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
  "source": "a = pd.read_json('ABS')\nb = pd.read_csv('REL')\nc = pd.read_csv('linked.csv')\nd = pd.read_csv('data/q1.csv')"}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	path := filepath.Join(dir, "theirs.ipynb")
	os.WriteFile(path, []byte(src), 0o644)
	nb, err := ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]NotebookInput{}
	for _, in := range nb.Inputs {
		got[in.Name] = in
	}
	for _, name := range []string{"config.json", "keys.csv", "linked.csv"} {
		if in := got[name]; in.Path != "" || in.Named == "" {
			t.Errorf("%s: read from %q by default (named %q)", name, in.Path, in.Named)
		}
	}
	if in := got["q1.csv"]; in.Path != filepath.Join(dir, "data", "q1.csv") {
		t.Errorf("q1.csv beside the notebook: %+v", in)
	}
}
