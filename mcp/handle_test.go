package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The handle an attach reads through must hold the file that was checked:
// one opened through a link swapped in for a moment (here: opened on the
// file outside), or a file with a second name, is refused though the path
// itself passes every check again.
func TestRecheckRefusesAHandleOfAnotherFile(t *testing.T) {
	outside, secretFile := secretOutside(t)
	root := t.TempDir()
	r, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "q1.csv")
	if err := os.WriteFile(p, []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := r.Resolve("q1.csv")
	if err != nil {
		t.Fatal(err)
	}
	open := func(path string) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if err := r.Recheck(real, open(real)); err != nil {
		t.Fatalf("the file's own handle: %v", err)
	}
	err = r.Recheck(real, open(secretFile))
	if err == nil || !strings.Contains(err.Error(), "the file opened is another one") || strings.Contains(err.Error(), outside) {
		t.Errorf("a handle on the file outside: %v", err)
	}
	held := open(real)
	if err := os.Link(real, filepath.Join(outside, "again.csv")); err != nil {
		t.Fatal(err)
	}
	if err := r.Recheck(real, held); err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Errorf("a handle on a file with a second name: %v", err)
	}
}
