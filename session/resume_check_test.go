package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// A changed input is told by what changed: size, hash, when it was
// modified against when the session read it, and the shape it had.
func TestCheckInputsSaysWhatChanged(t *testing.T) {
	data := filepath.Join(t.TempDir(), "budget_q1.csv")
	old := "department,plan\nA,1\n"
	os.WriteFile(data, []byte(old), 0o644)
	read := time.Date(2026, 12, 1, 9, 30, 0, 0, time.Local)
	rec := &Record{Entries: []Entry{{Kind: EntryInput, Time: read, Input: &Input{Name: "budget_q1.csv", Path: data, Size: int64(len(old)),
		SHA256: fileSHA256(data), Profile: &kernel.Profile{Rows: 48, Columns: make([]kernel.Column, 4)}}}}}
	os.WriteFile(data, []byte("department,plan\nB,2\n"), 0o644) // same size, other bytes
	mod := time.Date(2026, 12, 1, 10, 5, 0, 0, time.Local)
	os.Chtimes(data, mod, mod)
	c := rec.CheckInputs()
	if len(c) != 1 || c[0].Gone {
		t.Fatalf("checks %+v", c)
	}
	for _, want := range []string{"has changed since the session: same size (20 B)", "SHA-256 ", " then, ", " now",
		"modified 2026-12-01 10:05, after the session read it at 2026-12-01 09:30", "it had 48 rows × 4 columns"} {
		if !strings.Contains(c[0].Problem, want) {
			t.Errorf("problem %q lacks %q", c[0].Problem, want)
		}
	}
	os.WriteFile(data, []byte(old+"C,3\n"), 0o644)
	if c := rec.CheckInputs(); !strings.Contains(c[0].Problem, "size 20 B then, 24 B now") {
		t.Errorf("a longer file: %q", c[0].Problem)
	}
}
