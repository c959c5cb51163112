package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/secret"
)

// writeSession makes a session folder with a record of one question and
// registers it.
func writeSession(t *testing.T, index, id, question string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	os.MkdirAll(filepath.Join(dir, "figures"), 0o700)
	os.WriteFile(filepath.Join(dir, "figures", "cell1-1.png"), []byte("x"), 0o600)
	r, err := createRecord(filepath.Join(dir, RecordName), secret.New())
	if err != nil {
		t.Fatal(err)
	}
	r.header(id, "gpt-fake", "", Settings{})
	r.input(Input{Name: "q1.csv", Path: "/srv/q1.csv"})
	r.question(question)
	res := kernelOK()
	res.Figures = []kernel.File{{Name: "figures/cell1-1.png", Size: 1}}
	r.cell(1, "x = 1", res, time.Now())
	r.Close()
	started, _ := time.Parse("20060102-150405", id[:15])
	if err := register(index, id, dir, started); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestIndexListFindRemove(t *testing.T) {
	index := filepath.Join(t.TempDir(), "sessions")
	if got, gone, err := ListSessions(index); err != nil || len(got) != 0 || gone != nil {
		t.Fatalf("empty index: %v %v %v", got, gone, err)
	}
	if _, err := FindSession(index, Latest); err == nil || !strings.Contains(err.Error(), "no such session yet") {
		t.Errorf("latest of none: %v", err)
	}
	older := writeSession(t, index, "20260101-120000-aaaaaa", "first question")
	newer := writeSession(t, index, "20260102-090000-bbbbbb", "second question")
	writeSession(t, index, "20260102-093000-bbbccc", "third question")
	goneDir := writeSession(t, index, "20250101-000000-cccccc", "moved away")
	os.RemoveAll(goneDir)
	os.WriteFile(filepath.Join(index, "not-ours.json"), []byte("{}"), 0o600)

	got, gone, err := ListSessions(index)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "20260102-093000-bbbccc" || got[2].ID != "20260101-120000-aaaaaa" {
		t.Fatalf("list %+v", got)
	}
	if s := got[2]; s.Title != "first question" || s.Cells != 1 || s.Model != "gpt-fake" || s.Dir != older ||
		len(s.Files) != 1 || s.Files[0] != "/srv/q1.csv" || time.Since(s.Started) > time.Minute {
		t.Errorf("summary %+v", s)
	}
	if len(gone) != 1 || gone[0].ID != "20250101-000000-cccccc" {
		t.Errorf("gone %+v", gone)
	}

	for ref, want := range map[string]string{
		Latest:                   "20260102-093000-bbbccc",
		"20260101":               "20260101-120000-aaaaaa",
		"20260102-090000-bbbbbb": "20260102-090000-bbbbbb",
		newer:                    "20260102-090000-bbbbbb",
	} {
		rec, err := FindSession(index, ref)
		if err != nil || rec.ID != want {
			t.Errorf("FindSession(%q) = %v, %v; want %s", ref, rec, err, want)
		}
	}
	for ref, want := range map[string]string{
		"20260102": "names 2 sessions",
		"nope":     `no such session: "nope": quarry sessions lists them`,
		// a typo in an id: the nearest id, and only it
		"20260102-090000-bbbbbc": `no such session: "20260102-090000-bbbbbc": did you mean 20260102-090000-bbbbbb? (quarry sessions lists them)`,
		"20250101-000000-cccccc": "quarry sessions rm 20250101-000000-cccccc",
	} {
		if _, err := FindSession(index, ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FindSession(%q) = %v, want %q", ref, err, want)
		}
	}

	if rm, err := RemoveSession(index, "20260101-120000-aaaaaa"); err != nil || rm.Dir != older || rm.Kept != nil {
		t.Fatalf("remove: %+v %v", rm, err)
	}
	if _, err := os.Stat(older); !os.IsNotExist(err) {
		t.Errorf("the session folder is still there: %v", err)
	}
	if rm, err := RemoveSession(index, "20250101-000000-cccccc"); err != nil || rm.Dir != "" {
		t.Errorf("forgetting a gone session: %+v %v", rm, err)
	}
	if _, err := RemoveSession(index, "20260101-120000-aaaaaa"); err == nil {
		t.Error("removed twice")
	}
	if got, gone, _ := ListSessions(index); len(got) != 2 || len(gone) != 0 {
		t.Errorf("after rm: %+v %+v", got, gone)
	}
}

// A folder that now holds another session's record is not deleted on
// behalf of the session the index remembers there.
func TestRemoveKeepsAForeignFolder(t *testing.T) {
	index := filepath.Join(t.TempDir(), "sessions")
	dir := writeSession(t, index, "20260101-120000-aaaaaa", "q")
	other := writeSession(t, t.TempDir(), "20260103-120000-dddddd", "q")
	os.RemoveAll(dir)
	os.Rename(other, dir)
	if _, err := RemoveSession(index, "20260101-120000-aaaaaa"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RecordName)); err != nil {
		t.Errorf("another session's folder was deleted: %v", err)
	}
}
