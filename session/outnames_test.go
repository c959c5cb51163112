package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files written together get one free suffix: none while all are free,
// then the smallest that frees every one of them.
func TestFreeNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"report.xlsx", "report.pdf"}
	if got := strings.Join(FreeNames(dir, names), " "); got != "report.xlsx report.pdf" {
		t.Errorf("empty folder: %s", got)
	}
	for _, n := range []string{"report.pdf", "report-2.xlsx"} { // only one of each pair taken
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	if got := strings.Join(FreeNames(dir, names), " "); got != "report-3.xlsx report-3.pdf" {
		t.Errorf("taken: %s", got)
	}
}

// A file the user names is refused when its folder is missing (nothing is
// made), when it exists, or when it is a folder; each error says the fix.
func TestCheckNewOutput(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "x.ipynb")
	os.WriteFile(existing, []byte("{}"), 0o644)
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "new.ipynb"), ""},
		{filepath.Join(dir, "nonexistent", "dir", "x.ipynb"), "does not exist: check the path, or make the folder first (mkdir -p"},
		{existing, "exists, and would be replaced: name another file"},
		{dir, "is a folder: name the file"},
		{filepath.Join(existing, "y.ipynb"), "is a file, not a folder"},
	}
	for _, c := range cases {
		err := CheckNewOutput(c.path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nonexistent")); err == nil {
		t.Error("the check made a folder")
	}
}
