package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// quarry --resume in the chat: the conversation is back on screen, a file
// that changed since is asked about before anything runs, the kernel is
// rebuilt (a variable of the first chat answers in the second) and
// /export writes the session.
func TestChatTUIResume(t *testing.T) {
	requireChat(t)
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			return openaitest.Text("Still here: " + strings.TrimSpace(strings.TrimPrefix(last.Content, "[stdout]\n")))
		}
		if strings.Contains(r.LastUser(), "revenue") {
			return openaitest.ToolCalls(revenueCode)
		}
		return openaitest.ToolCalls("print('rows', len(df), 'groups', len(by))")
	})
	dir := t.TempDir()
	sales := filepath.Join(dir, "sales.csv")
	os.WriteFile(sales, []byte("region,revenue\nNorth,1200.5\nSouth,980.25\nEast,15000\nWest,77.7\n"), 0o644)

	c := startChatArgs(t, dir, srv.URL, []string{"sales.csv"})
	c.waitFor("the chat", 3*time.Minute, has("sales.csv", "sandbox ready"))
	c.typeLine("What is the revenue by region?")
	c.waitFor("the answer", 2*time.Minute, has("Still here:", "sandbox ready"))
	c.typeLine("/quit")
	c.waitExit()
	c.close()

	os.WriteFile(sales, []byte("region,revenue\nNorth,1200.5\nSouth,980.25\nEast,15000\nWest,77.7\nNorth,1\n"), 0o644)
	c = startChatArgs(t, dir, srv.URL, []string{"--resume"})
	s := c.waitFor("the question about sales.csv", 3*time.Minute, has("sales.csv:", "has changed since the session", "Resumed session"))
	// The conversation is longer than the screen: its start is above.
	c.keys("C-Home")
	s = c.waitFor("the start of the resumed chat", time.Minute, has("↓ more below"))
	for _, want := range []string{"What is the revenue by region?", "cell 1 · done"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed chat lacks %q:\n%s", want, s)
		}
	}
	c.keys("C-End")
	c.keys("Enter")
	c.waitFor("the rebuilt kernel", 2*time.Minute, has("Kernel rebuilt"))
	c.typeLine("still there?")
	c.waitFor("an answer from the rebuilt kernel", 2*time.Minute, has("Still here: rows 5 groups 4"))
	c.typeLine("/export")
	c.waitFor("the export", time.Minute, has("Exported:", "report.html"))
	c.typeLine("/quit")
	c.waitExit()
	matches, _ := filepath.Glob(filepath.Join(dir, "quarry-output", "*", "analysis.ipynb"))
	if len(matches) != 1 {
		t.Errorf("no notebook in the session folder: %v", matches)
	}
	requireNoContainers(t, c.pid)
}
