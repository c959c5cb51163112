package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/notebook"
)

// A notebook quarry exported reads back as the cells that succeeded, under
// their questions, with the sandbox's folders in its setup cell and its
// inputs (with their columns) from its metadata.
func TestReadExportedNotebook(t *testing.T) {
	rec := loadRecord(t, writeRecord(t, 2, 3))
	dir := t.TempDir()
	path := filepath.Join(dir, "analysis.ipynb")
	if _, err := Write(rec, Notebook, path); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "q1.csv"), []byte("region,revenue\n"), 0o644)
	nb, err := notebook.ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	if !nb.Quarry || len(nb.Inputs) != 1 || nb.Inputs[0].Name != "q1.csv" || nb.Inputs[0].Path != filepath.Join(dir, "q1.csv") ||
		nb.Inputs[0].Profile == nil || len(nb.Inputs[0].Profile.Columns) != 2 {
		t.Fatalf("notebook %+v inputs %+v", nb, nb.Inputs)
	}
	if len(nb.Turns) != 3 || nb.Turns[0].Question != "" || nb.Turns[1].Question != hostileQuestion || nb.Turns[2].Question != "question 2" {
		t.Fatalf("turns %+v", nb.Turns)
	}
	if c := nb.Turns[0].Cells; len(c) != 1 || c[0].Code != "DATA_DIR = '/data/'\nOUTPUT_DIR = '/output/'" {
		t.Errorf("setup %+v", c)
	}
	if c := nb.Turns[1].Cells; len(c) != 2 || !strings.Contains(c[0].Code, "(DATA_DIR + 'q1.csv')") {
		t.Errorf("first question's cells %+v: want the two that succeeded", c)
	}
	os.Remove(filepath.Join(dir, "q1.csv"))
	nb, _ = notebook.ReadNotebook(path)
	if in := nb.Inputs[0]; in.Path != "" || in.Named != "/home/ana/q1.csv" {
		t.Errorf("without the file beside it, the input is %+v, want where the session had it named, for the user to confirm", in)
	}
}

// quarry's own notebook names where the session had its inputs: they are
// read from there only when the user says so.
func TestReadExportedNotebookAsksForItsInputs(t *testing.T) {
	rec := loadRecord(t, writeRecord(t, 1, 1))
	exported := filepath.Join(t.TempDir(), "analysis.ipynb")
	if _, err := Write(rec, Notebook, exported); err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.ReadNotebook(exported)
	if err != nil {
		t.Fatal(err)
	}
	if in := nb.Inputs[0]; in.Path != "" || in.Named != "/home/ana/q1.csv" {
		t.Errorf("exported notebook's input %+v", in)
	}
}
