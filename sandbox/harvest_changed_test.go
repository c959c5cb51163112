package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// A file the harvest wrote stops being the sandbox's once something on the
// host replaces or edits it: quarry's own export written over a harvested
// report.html or analysis.ipynb, or the user's edit. A later version from
// the sandbox does not replace it, and undo does not delete it; otherwise
// code in the sandbox could swap the HTML or notebook quarry said it wrote
// for its own.
func TestHarvestLeavesFilesChangedOnTheHost(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	before := h.versions()
	for _, name := range []string{"report.html", "notes.txt"} {
		if files, _, err := h.fromTar(tarOf(t, entry{name: "output/" + name, body: "from the sandbox"}), nil); err != nil || len(files) != 1 {
			t.Fatalf("first harvest of %s: %+v %v", name, files, err)
		}
	}
	// The export's way (a new file renamed over it), and an edit in place.
	report := filepath.Join(h.Dir(), "report.html")
	tmp := report + ".tmp"
	os.WriteFile(tmp, []byte("<p>quarry's escaped report</p>"), 0o644)
	os.Rename(tmp, report)
	notes := filepath.Join(h.Dir(), "notes.txt")
	time.Sleep(10 * time.Millisecond) // a new modification time even on coarse clocks
	os.WriteFile(notes, []byte("the user's edit!"), 0o600)

	for _, name := range []string{"report.html", "notes.txt"} {
		files, notes, err := h.fromTar(tarOf(t, entry{name: "output/" + name, body: "<script>alert(1)</script>"}), nil)
		if err != nil || len(files) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "changed on the host") {
			t.Errorf("second harvest of %s: files %+v notes %q err %v", name, files, notes, err)
		}
	}
	if b, _ := os.ReadFile(report); string(b) != "<p>quarry's escaped report</p>" {
		t.Errorf("the export was replaced: %q", b)
	}
	if b, _ := os.ReadFile(notes); string(b) != "the user's edit!" {
		t.Errorf("the edit was replaced: %q", b)
	}
	if removed, _ := h.rollback(before); len(removed) != 0 {
		t.Errorf("undo removed %q, changed on the host since", removed)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("undo deleted the export: %v", err)
	}

	// A continued session adopts an earlier file only as the record left it.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "analysis.ipynb"), []byte(`{"quarry's": "export"}`), 0o644)
	h2, err := newHarvester(dir, harvestLimits{}, &Earlier{Files: []kernel.File{{Name: "analysis.ipynb", Size: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if files, _, _ := h2.fromTar(tarOf(t, entry{name: "output/analysis.ipynb", body: "evil!"}), nil); len(files) != 0 {
		t.Errorf("a file changed since the record was adopted and replaced: %+v", files)
	}
}
