package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// budgetCSV is a budget of n departments.
func budgetCSV(n int) string {
	var b strings.Builder
	b.WriteString("department,plan,actual,owner\n")
	for i := range n {
		b.WriteString("Dept" + string(rune('A'+i%26)) + ",100,90,Ana\n")
	}
	return b.String()
}

// quarry --resume shows the session's files as the first chat did: the
// chips (a changed one marked), /files, and /attach of one of them says it
// is attached because it is, on screen too.
func TestChatTUIResumeShowsItsFiles(t *testing.T) {
	requireChat(t)
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		if strings.Contains(r.LastUser(), "rows") {
			return openaitest.ToolCalls("print(len(pd.read_csv('/data/budget_q1.csv')))")
		}
		return openaitest.Text("Noted.")
	})
	dir := t.TempDir()
	q1, q2 := filepath.Join(dir, "budget_q1.csv"), filepath.Join(dir, "budget_q2.csv")
	os.WriteFile(q1, []byte(budgetCSV(48)), 0o644)
	os.WriteFile(q2, []byte(budgetCSV(48)), 0o644)

	c := startChatArgs(t, dir, srv.URL, []string{"budget_q1.csv", "budget_q2.csv"})
	c.waitFor("the chat", 3*time.Minute, has("budget_q1.csv 845 B · 48 × 4", "budget_q2.csv 845 B · 48 × 4", "sandbox ready"))
	c.typeLine("How many rows?")
	c.waitFor("the answer", 2*time.Minute, has("Noted.", "sandbox ready"))
	c.typeLine("/quit")
	c.waitExit()
	c.close()

	os.WriteFile(q1, []byte(budgetCSV(49)), 0o644)
	c = startChatArgs(t, dir, srv.URL, []string{"--resume"})
	s := c.waitFor("the question about budget_q1.csv", 3*time.Minute, has("budget_q1.csv:", "has changed since the session"))
	// What changed, and what the keys do, where the eye is.
	flat := strings.Join(strings.Fields(s), " ")
	for _, want := range []string{"size 845 B then, 862 B now", "SHA-256 ", "modified ", "after the session read it at", "it had 48 rows × 4 columns",
		"enter: use budget_q1.csv as it is now · or type a path, then enter", "› Enter uses budget_q1.csv as it is now"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	c.keys("Enter")
	s = c.waitFor("the rebuilt kernel", 2*time.Minute, has("Kernel rebuilt"))
	if flat := strings.Join(strings.Fields(s), " "); !strings.Contains(flat, "budget_q1.csv now 49 × 4 (48 × 4 in the earlier turns), read from "+q1) {
		t.Errorf("the new shape is not confirmed:\n%s", s)
	}
	for _, want := range []string{"budget_q1.csv 862 B · 49 × 4 · changed", "budget_q2.csv 845 B · 48 × 4", "· 2 files (1 changed)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the chips or the status bar lack %q:\n%s", want, s)
		}
	}
	c.typeLine("/files")
	s = c.waitFor("/files", time.Minute, has("Attached files:"))
	if strings.Contains(s, "No files attached") || !strings.Contains(s, "— /data/budget_q1.csv") || !strings.Contains(s, "— /data/budget_q2.csv") {
		t.Errorf("/files after resume:\n%s", s)
	}
	c.typeLine("/quit")
	c.waitExit()
	requireNoContainers(t, c.pid)
}
