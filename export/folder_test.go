package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An export or a report into a folder that does not exist is refused with
// the fix, and no folder is made: a mistyped path makes no tree.
func TestWriteRefusesAMissingFolder(t *testing.T) {
	rec := loadRecord(t, writeRecord(t, 1, 1))
	base := t.TempDir()
	missing := filepath.Join(base, "nonexistent", "dir")
	_, err := Write(rec, Notebook, filepath.Join(missing, "x.ipynb"))
	if err == nil || !strings.Contains(err.Error(), "the folder "+missing+" does not exist: check the path, or make the folder first") {
		t.Errorf("Write = %v", err)
	}
	_, err = WriteReport(context.Background(), rec, nil, ReportOptions{Formats: []Format{PDF}, Paths: map[Format]string{PDF: filepath.Join(missing, "q2.pdf")}})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("WriteReport = %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "nonexistent")); err == nil {
		t.Error("a folder was made")
	}
	if _, err := Write(rec, Notebook, filepath.Join(base, "x.ipynb")); err != nil {
		t.Errorf("an existing folder: %v", err)
	}
}
