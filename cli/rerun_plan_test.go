package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A notebook from elsewhere names a host file outside its folder: the rerun
// stops before any sandbox starts and asks for the file by name; given with
// --map (or as an argument) it is used.
func TestRerunPlanAsksForFilesOutsideTheNotebook(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	secret := filepath.Join(other, "config.json")
	os.WriteFile(secret, []byte(`{"auths": {"registry": "c2VjcmV0"}}`), 0o600)
	nb := filepath.Join(dir, "theirs.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
  "source": "print(pd.read_json('`+secret+`'))"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)

	_, err := planRerun(nb, nil, nil, false)
	if err == nil || !strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "outside the notebook's folder") ||
		!strings.Contains(err.Error(), "--map config.json=FILE") {
		t.Fatalf("plan: %v, want the outside file named and --map asked for", err)
	}
	plan, err := planRerun(nb, nil, []string{"config.json=" + secret}, false)
	if err != nil || len(plan.inputs) != 1 || plan.inputs[0].Path != secret {
		t.Fatalf("plan with --map: %+v %v", plan, err)
	}
	plan, err = planRerun(nb, []string{secret}, nil, false)
	if err != nil || len(plan.inputs) != 1 || plan.inputs[0].Path != secret {
		t.Fatalf("plan with the file given: %+v %v", plan, err)
	}
}

// A notebook's input inside its folder may be replaced by a file of any
// name, as the code opens it as it likes; a session's input still needs a
// data file.
func TestRerunPlanMapsANotebookInputOfAnyName(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "access_log"), []byte("10.0.0.1 200 5120\n"), 0o644)
	nb := filepath.Join(dir, "logs.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
  "source": "log = pd.read_csv('data/access_log', sep=' ')"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	feb := filepath.Join(t.TempDir(), "access_log.2")
	os.WriteFile(feb, []byte("10.0.0.9 404 12\n"), 0o644)
	plan, err := planRerun(nb, nil, []string{"data/access_log=" + feb}, false)
	if err != nil || len(plan.inputs) != 1 || plan.inputs[0].Path != feb || plan.inputs[0].Rel != "data/access_log" {
		t.Fatalf("plan %+v: %v", plan, err)
	}
	if _, err := planRerun(nb, nil, []string{"access_log=" + filepath.Join(dir, "nope")}, false); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// A notebook's input that is not there is named with the cell that reads
// it and the --map to give it, and the plan runs without it (its cell fails
// as in Jupyter); --strict-inputs refuses it up front, naming it. A
// session's input is always refused: its rerun needs every file.
func TestRerunPlanMissingNotebookInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q1.csv"), []byte("a,b\n1,2\n"), 0o644)
	nb := filepath.Join(dir, "ch06.ipynb")
	os.WriteFile(nb, []byte(`{"cells": [
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": "df = pd.read_csv('q1.csv')"},
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2, "source": "x = pd.read_csv('datasets/later.csv')"}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	plan, err := planRerun(nb, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.inputs) != 1 || plan.inputs[0].Rel != "q1.csv" {
		t.Errorf("inputs %+v, want q1.csv alone", plan.inputs)
	}
	if len(plan.missing) != 1 || plan.missing[0].path != "datasets/later.csv" || plan.missing[0].cell != 2 {
		t.Fatalf("missing %+v, want datasets/later.csv read in cell 2", plan.missing)
	}
	w := plan.missing[0].words("ch06.ipynb")
	for _, want := range []string{"code cell 2", "datasets/later.csv", "--map datasets/later.csv=FILE", "--strict-inputs"} {
		if !strings.Contains(w, want) {
			t.Errorf("%q lacks %q", w, want)
		}
	}
	_, err = planRerun(nb, nil, nil, true)
	if err == nil || !strings.Contains(err.Error(), "later.csv") || !strings.Contains(err.Error(), "--map later.csv=FILE") {
		t.Errorf("strict: %v, want the missing file refused up front with --map", err)
	}
	given := filepath.Join(t.TempDir(), "later.csv")
	os.WriteFile(given, []byte("c\n3\n"), 0o644)
	plan, err = planRerun(nb, nil, []string{"datasets/later.csv=" + given}, true)
	if err != nil || len(plan.inputs) != 2 || len(plan.missing) != 0 {
		t.Errorf("with --map: %+v %v", plan, err)
	}
}
