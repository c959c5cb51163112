package export

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
)

// A notebook of a session that called variance() says, in plain Jupyter,
// where that function is and how to run the notebook with it, instead of a
// NameError; quarry's own rerun leaves the setup cell out and keeps its
// kernel's variance().
func TestNotebookNamesQuarrysVariance(t *testing.T) {
	py := hosttest.Python(t)
	rec := loadRecord(t, reportRecord(t, knownLines, ""))
	path := filepath.Join(t.TempDir(), "analysis.ipynb")
	if _, err := Write(rec, Notebook, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var nb struct {
		Cells []struct {
			ID     string `json:"id"`
			Source any    `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	var setup string
	for _, c := range nb.Cells {
		if c.ID == "quarry-setup" {
			switch s := c.Source.(type) {
			case string:
				setup = s
			case []any:
				for _, l := range s {
					setup += l.(string)
				}
			}
		}
	}
	if !strings.Contains(setup, "def variance(") {
		t.Fatalf("the setup cell does not name variance():\n%s", setup)
	}
	// The part after the imports, run alone: calling it says what to do.
	i := strings.Index(setup, "# The session called quarry's")
	prog := setup[i:] + "\ntry:\n    variance('a.csv')\nexcept NotImplementedError as e:\n    print('SAYS', e)\n"
	out, err := exec.Command(py, "-c", prog).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SAYS variance() is quarry's: run this notebook with quarry rerun") {
		t.Fatalf("%v: %s", err, out)
	}
}
