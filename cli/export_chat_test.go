package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/session"
)

// chatSessionDir is a session folder whose record holds one answered
// question.
func chatSessionDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261206-120000-abcdef")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	for _, e := range []session.Entry{
		{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Model: "gpt-test", Time: now},
		{Kind: session.EntryQuestion, Text: "how many rows?", Time: now},
		{Kind: session.EntryAnswer, Text: "Two.", Time: now},
	} {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "session.jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// /export replaces nothing and makes no folder: alone, a second export
// gets free names; a PATH that exists or whose folder is missing is
// refused with the fix, and nothing is made.
func TestExportChatReplacesNothing(t *testing.T) {
	dir := chatSessionDir(t)
	first, err := exportChat(dir, "")
	if err != nil || len(first) < 3 {
		t.Fatalf("first export: %v %v", first, err)
	}
	second, err := exportChat(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range second {
		names = append(names, filepath.Base(p))
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "analysis-2.ipynb") || !strings.Contains(got, "report-2.md") || !strings.Contains(got, "report-2.html") {
		t.Errorf("second export wrote %s", got)
	}
	missing := filepath.Join(t.TempDir(), "nonexistent", "dir")
	if _, err := exportChat(dir, filepath.Join(missing, "x.ipynb")); err == nil || !strings.Contains(err.Error(), "does not exist: check the path, or make the folder first") {
		t.Errorf("a missing folder: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("the missing folder was made")
	}
	if _, err := exportChat(dir, first[0]); err == nil || !strings.Contains(err.Error(), "would be replaced") {
		t.Errorf("an existing file: %v", err)
	}
	if _, err := exportChat(dir, "notes.txt"); err == nil || !strings.Contains(err.Error(), "name a .ipynb, .md or .html file") {
		t.Errorf("a wrong extension: %v", err)
	}
}

// quarry export without -o replaces no earlier export in the session
// folder: a second one gets the next free name; -o into a missing folder
// is refused and makes none.
func TestExportCommandReplacesNothing(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := chatSessionDir(t)
	var printed []string
	for range 2 {
		code, out, errs := runQuarry(t, "export", dir, "--format", "html")
		if code != 0 {
			t.Fatalf("export: %d %s", code, errs)
		}
		printed = append(printed, strings.TrimSpace(out))
	}
	if printed[0] != filepath.Join(dir, "report.html") || printed[1] != filepath.Join(dir, "report-2.html") {
		t.Errorf("exports wrote %q", printed)
	}
	missing := filepath.Join(t.TempDir(), "nonexistent", "dir")
	code, _, errs := runQuarry(t, "export", dir, "-o", filepath.Join(missing, "x.ipynb"))
	if code == 0 || !strings.Contains(errs, "does not exist: check the path") {
		t.Errorf("-o into a missing folder: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("the missing folder was made")
	}
}
