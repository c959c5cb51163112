package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// dataFiles writes CSV files under a new working folder and moves there,
// so paths on screen are the same on every run; back returns to the
// package's folder, where the golden files are.
func dataFiles(t *testing.T, names ...string) (back func()) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, n := range names {
		os.MkdirAll(filepath.Dir(n), 0o755)
		if err := os.WriteFile(n, []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
	}
}

// A refused attach leaves the chat as it was: the same file attached again
// is said to be attached already, and its chip, /files and the status
// bar's count stay.
func TestRefusedAttachChangesNothing(t *testing.T) {
	back := dataFiles(t, "data/f1.csv", "data/f2.csv")
	m, fb := newTestModel(t, 100, 24, true)
	run(t, m, "/attach data/f1.csv")
	run(t, m, "/attach data/f2.csv")
	before := plain(m)
	if !strings.Contains(before, "f2.csv 12.1 KiB") || !strings.Contains(before, "2 files") {
		t.Fatalf("the first attach did not show:\n%s", before)
	}
	run(t, m, "/attach data/f2.csv")
	run(t, m, "/files")
	s := plain(m)
	if !strings.Contains(s, "data/f2.csv is already attached as f2.csv") || strings.Contains(s, "rename") {
		t.Errorf("the second attach does not say the file is attached already:\n%s", s)
	}
	if !strings.Contains(s, "f2.csv 12.1 KiB · 1,200 × 7 — /data/f2.csv") {
		t.Errorf("/files lost f2.csv:\n%s", s)
	}
	lines := strings.Split(s, "\n")
	if chips := lines[len(lines)-4]; !strings.Contains(chips, "f1.csv") || !strings.Contains(chips, "f2.csv") {
		t.Errorf("a chip is gone: %q", chips)
	}
	if !strings.Contains(statusLine(s), "2 files") {
		t.Errorf("the status bar's count changed: %q", statusLine(s))
	}
	if len(fb.Files()) != 2 {
		t.Errorf("the session holds %d files", len(fb.Files()))
	}
	back()
	golden.RequireEqual(t, s)
}

// statusLine is the plain screen's status bar, above the key help.
func statusLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-2]
}

// /attach expands a pattern as the shell does on quarry's command line,
// says what it matched and attaches each file; the folder advice the
// check gives is a pattern /attach takes.
func TestAttachExpandsPatterns(t *testing.T) {
	back := dataFiles(t, "data/somedir/q1.csv", "data/somedir/q2.csv", "data/somedir/sub/q3.csv", "data/somedir/.q0.csv", "data/other.csv")
	m, fb := newTestModel(t, 100, 24, true)
	m.opts.CheckFile = func(p string) error {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return errors.New(p + ": is a folder, not a file: name the files inside it, e.g. " + filepath.Join(p, "*.csv"))
		}
		return regularFile(p)
	}
	run(t, m, "/attach data/somedir")
	advice := plain(m)
	_, pattern, ok := strings.Cut(advice, "e.g. ")
	if !ok {
		t.Fatalf("no advice:\n%s", advice)
	}
	pattern = strings.Fields(pattern)[0]
	run(t, m, "/attach "+pattern)
	run(t, m, "/attach data/nothing*.csv")
	s := plain(m)
	for _, want := range []string{
		"data/somedir/*.csv matches 2 files: q1.csv, q2.csv",
		"Attached q1.csv 12.1 KiB", "Attached q2.csv 12.1 KiB",
		"data/nothing*.csv: no file matches it",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if got := fb.attached; len(got) != 2 || got[0] != "data/somedir/q1.csv" || got[1] != "data/somedir/q2.csv" {
		t.Errorf("attached %q", got)
	}
	if !strings.Contains(statusLine(s), "2 files") {
		t.Errorf("status bar: %q", statusLine(s))
	}
	back()
	golden.RequireEqual(t, s)
}

// Several paths on one line are attached each; one path with spaces typed
// without quotes is still one path.
func TestAttachSeveralPaths(t *testing.T) {
	dataFiles(t, "a.csv", "b.csv", "my data.csv")
	m, fb := newTestModel(t, 100, 24, true)
	run(t, m, "/attach a.csv b.csv")
	run(t, m, "/attach my data.csv")
	if got := fb.attached; len(got) != 3 || got[0] != "a.csv" || got[1] != "b.csv" || got[2] != "my data.csv" {
		t.Errorf("attached %q", got)
	}
}
