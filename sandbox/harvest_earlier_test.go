package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// A continued session's folder holds what the earlier process harvested:
// those files may be replaced by a newer version, every other file of the
// folder stays as it is.
func TestHarvestEarlierFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(filepath.Join(dir, "figures"), 0o700)
	os.WriteFile(filepath.Join(dir, "variance.csv"), []byte("old"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the user's"), 0o600)
	fig := pngBytes(t, 4, 4)
	os.WriteFile(filepath.Join(dir, "figures", "cell1-1.png"), fig, 0o600)

	if _, err := newHarvester(dir, harvestLimits{}, nil); err == nil {
		t.Fatal("a non-empty folder was accepted without Earlier")
	}
	h, err := newHarvester(dir, harvestLimits{}, &Earlier{
		Cells:   1,
		Files:   []kernel.File{{Name: "variance.csv", Size: 3}, {Name: "../escape", Size: 1}},
		Figures: []kernel.File{{Name: "figures/cell1-1.png", Size: int64(len(fig))}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	files, notes, err := h.fromTar(tarOf(t,
		entry{name: "output/variance.csv", body: "new"},
		entry{name: "output/notes.txt", body: "from the sandbox"},
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Name != "variance.csv" || len(notes) != 1 {
		t.Fatalf("files %+v, notes %q", files, notes)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "variance.csv")); string(b) != "new" {
		t.Errorf("the session's own file was not replaced: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "the user's" {
		t.Errorf("a file the session never wrote was replaced: %q", b)
	}
	if _, err := h.writeFile("figures/cell1-1.png", pngBytes(t, 8, 8)); err != nil {
		t.Errorf("the session's own figure could not be replaced: %v", err)
	}
	if _, err := h.writeFile("variance.csv", fig); err == nil {
		t.Error("a figure replaced an /output file")
	}
}
