package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder given as a file is refused with a pattern that matches the data
// files inside it, the kind it holds most of: the pattern works where it
// is offered (the shell, /attach).
func TestFolderAdviceMatchesItsFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"q1.xlsx", "q2.xlsx", "notes.csv", "readme.txt", ".hidden.xlsx"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := CheckFile(dir)
	if err == nil {
		t.Fatal("a folder was accepted")
	}
	_, pattern, ok := strings.Cut(err.Error(), "e.g. ")
	if !ok {
		t.Fatalf("no pattern in %q", err)
	}
	pattern = strings.Fields(pattern)[0]
	got, _ := filepath.Glob(pattern)
	var names []string
	for _, g := range got {
		if !strings.HasPrefix(filepath.Base(g), ".") {
			names = append(names, filepath.Base(g))
		}
	}
	if strings.Join(names, " ") != "q1.xlsx q2.xlsx" || !strings.Contains(err.Error(), "(2 files)") {
		t.Errorf("advice %q matches %q, want q1.xlsx q2.xlsx", err, names)
	}

	empty := t.TempDir()
	if err := CheckFile(empty); err == nil || strings.Contains(err.Error(), "e.g.") || !strings.Contains(err.Error(), "holds no data file") {
		t.Errorf("an empty folder: %v", err)
	}
}
