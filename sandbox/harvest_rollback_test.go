package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHarvestRollback(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{MaxFiles: 3})
	if _, _, err := h.fromTar(tarOf(t, entry{name: "output/kept.csv", body: "a"}, entry{name: "output/same.csv", body: "s"}), nil); err != nil {
		t.Fatal(err)
	}
	then := h.versions()
	if _, _, err := h.fromTar(tarOf(t, entry{name: "output/kept.csv", body: "ab"}, entry{name: "output/sub/new.csv", body: "n"}), nil); err != nil {
		t.Fatal(err)
	}
	// A file the harvester did not write is never touched.
	planted := filepath.Join(h.Dir(), "sub", "planted.txt")
	if err := os.WriteFile(planted, []byte("p"), 0o600); err != nil {
		t.Fatal(err)
	}
	removed, changed := h.rollback(then)
	if !slices.Equal(removed, []string{"sub/new.csv"}) || !slices.Equal(changed, []string{"kept.csv"}) {
		t.Fatalf("removed %q changed %q", removed, changed)
	}
	if got := hostEntries(t, h.Dir()); !slices.Equal(got, []string{"kept.csv", "same.csv", "sub", "sub/planted.txt"}) {
		t.Fatalf("host folder after rollback: %q", got)
	}
	if h.bytes != 3 || len(h.written) != 2 {
		t.Errorf("accounting after rollback: %d bytes, %d files", h.bytes, len(h.written))
	}
	// The room the removed file took is free again: the file cap counts two.
	if _, _, err := h.fromTar(tarOf(t, entry{name: "output/third.csv", body: "3"}), nil); err != nil || len(h.written) != 3 {
		t.Fatalf("after rollback the cap still counts the removed file: %v, %d files", err, len(h.written))
	}
	if removed, _ := h.rollback(then); !slices.Equal(removed, []string{"third.csv"}) {
		t.Errorf("second rollback removed %q", removed)
	}
}
