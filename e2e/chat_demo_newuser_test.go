package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/demo/demotest"
)

// quarry demo tried as a new user would (issue 41): a refused attach hides
// nothing, /attach takes the pattern its folder advice names, /model keeps
// the demo the demo, /report checks its words before it announces, names
// only what it writes and never replaces the demo's report, and /export
// makes no missing folder.
func TestDemoChatAsANewUser(t *testing.T) {
	requireChat(t)
	watch, _ := demotest.Watch(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, n := range []string{"data/f2.csv", "data/somedir/a.csv", "data/somedir/b.csv"} {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("k,v\nx,1\ny,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startChatEnv(t, dir, demotest.NoNetworkEnv(watch), []string{"demo", "--output-dir", out})
	book, pdf := filepath.Join(out, "report.xlsx"), filepath.Join(out, "report.pdf")
	c.waitFor("the demo's report", 5*time.Minute, has("Report written:", book, pdf, "sandbox ready"))
	bookBefore, _ := os.Stat(book)

	// 1. The same file twice: the second is refused and nothing goes.
	c.typeLine("/attach data/f2.csv")
	c.waitFor("f2.csv attached", time.Minute, has("Attached f2.csv", "· 4 files"))
	c.typeLine("/attach data/f2.csv")
	s := c.waitFor("the refusal", time.Minute, has("data/f2.csv is already attached as f2.csv"))
	c.typeLine("/files")
	s = c.waitFor("/files", time.Minute, has("— /data/f2.csv"))
	if !strings.Contains(statusBar(s), "4 files") || strings.Contains(s, "rename one of them") {
		t.Errorf("the refused attach changed the chat:\n%s", s)
	}

	// 2. A folder's advice is a pattern /attach expands.
	c.typeLine("/attach data/somedir")
	c.waitFor("the folder advice", time.Minute, has("is a folder, not a file", "data/somedir/*.csv"))
	c.typeLine("/attach data/somedir/*.csv")
	c.waitFor("the pattern attached", time.Minute, has("data/somedir/*.csv matches 2 files: a.csv, b.csv", "Attached a.csv", "Attached b.csv", "· 6 files"))

	// 3. /model in the demo switches nothing.
	c.typeLine("/model gpt-4.1-mini")
	s = c.waitFor("the demo's /model", time.Minute, has("The demo's model is a script", "quarry --resume"))
	if strings.Contains(statusBar(s), "gpt-4.1-mini") {
		t.Errorf("the status bar names the model the demo never used: %s", statusBar(s))
	}

	// 5. Words checked before anything is announced; only what is written named.
	c.typeLine("/report nonsense")
	s = c.waitFor("the refused /report", time.Minute, has("/report: nonsense: name xlsx, pdf or html"))
	if n := strings.Count(c.history(), "Writing the report"); n > 1 {
		t.Errorf("/report nonsense was announced (%d announcements):\n%s", n, s)
	}
	c.typeLine("/report html")
	s = c.waitFor("/report html", 2*time.Minute, has("Writing the report: report.html…", filepath.Join(out, "report.html")))
	if strings.Contains(s, "Writing the report: report.html, built") {
		t.Errorf("/report html names a build it does not do:\n%s", s)
	}

	// 4. After /reset there is nothing to report, and nothing is replaced.
	c.typeLine("/reset")
	c.waitFor("the reset", time.Minute, has("Fresh kernel with the same files"))
	c.typeLine("/report")
	c.waitFor("nothing to report", time.Minute, has("nothing to report yet"))
	if st, err := os.Stat(book); err != nil || !st.ModTime().Equal(bookBefore.ModTime()) || st.Size() != bookBefore.Size() {
		t.Errorf("the demo's workbook was replaced (%v)", err)
	}

	// 6. /export into a missing folder makes nothing.
	missing := filepath.Join(dir, "nonexistent", "dir", "x.ipynb")
	c.typeLine("/export " + missing)
	c.waitFor("the refused export", time.Minute, has("does not exist: check the path"))
	if _, err := os.Stat(filepath.Join(dir, "nonexistent")); err == nil {
		t.Error("/export made the missing folder")
	}

	c.typeLine("/quit")
	c.waitExit()
	requireNoContainers(t, c.pid)
	rec, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	// The answer itself mentions --model gpt-4.1-mini: no switch is recorded.
	if err != nil || !strings.Contains(string(rec), `"scripted-demo"`) || strings.Contains(string(rec), `"kind":"model"`) {
		t.Errorf("the record does not keep the scripted model alone (%v)", err)
	}
}
