package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
)

// sessions rm deletes what quarry wrote in the folder and nothing else:
// the exported notebook runs in Jupyter with the data beside it (its
// DATA_DIR is its own folder), so the analyst's files may sit there too.
// A link in the folder leads no removal outside it.
func TestRemoveKeepsWhatQuarryDidNotWrite(t *testing.T) {
	index := filepath.Join(t.TempDir(), "sessions")
	id := "20260101-120000-aaaaaa"
	dir := writeSession(t, index, id, "q")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "cell1-1.png"), []byte("theirs"), 0o600)
	for name, body := range map[string]string{
		"analysis.ipynb":               "{}",
		"report.md":                    "# r",
		"report.html":                  "<p>",
		"report.xlsx":                  "PK",
		"report.pdf":                   "%PDF",
		".report-123456/report.json":   "{}",
		".report.html.tmp-123":         "half",
		"tables/cell1.csv":             "a,b",
		"tables/cell1-2.csv":           "a,b",
		"figures/.quarry-tmp-0123abcd": "half",
		"q1.csv":                       "region,revenue",
		"notes/q3 review.docx":         "mine",
		".ipynb_checkpoints/analysis-checkpoint.ipynb": "{}",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(body), 0o600)
	}
	os.Symlink(outside, filepath.Join(dir, "linked"))
	r, err := appendRecord(filepath.Join(dir, RecordName), secret.New())
	if err != nil {
		t.Fatal(err)
	}
	r.cell(2, "y", kernel.Result{Files: []kernel.File{{Name: "linked/cell1-1.png", Size: 6}}}, time.Now())
	r.Close()

	rm, err := RemoveSession(index, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".ipynb_checkpoints/analysis-checkpoint.ipynb", "linked", "notes/q3 review.docx", "q1.csv"}
	if rm.Dir != dir || !reflect.DeepEqual(rm.Kept, want) {
		t.Errorf("removed %+v, want %s kept in %s", rm, want, dir)
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	if !reflect.DeepEqual(left, want) {
		t.Errorf("left in the folder: %s, want %s", left, want)
	}
	for _, gone := range []string{"figures", "tables", RecordName} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "cell1-1.png")); err != nil || string(b) != "theirs" {
		t.Errorf("a file outside the folder was touched: %q %v", b, err)
	}
	if got, _, _ := ListSessions(index); len(got) != 0 {
		t.Errorf("still listed: %+v", got)
	}
}
