package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry --resume in the chat: the conversation is back on screen, a file
// that changed since is asked about before anything runs, the kernel is
// rebuilt (a variable of the first chat answers in the second) and
// /export writes the session.
func TestChatTUIResume(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t)
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
	c.waitFor("the chat", 3*time.Minute, c.has("sales.csv", "sandbox ready"))
	c.tmux("send-keys", "-t", "q", "-l", "What is the revenue by region?")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the answer", 2*time.Minute, c.has("Still here:", "sandbox ready"))
	c.tmux("send-keys", "-t", "q", "-l", "/quit")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitExit(t)
	c.tmux("kill-server")

	os.WriteFile(sales, []byte("region,revenue\nNorth,1200.5\nSouth,980.25\nEast,15000\nWest,77.7\nNorth,1\n"), 0o644)
	c = startChatArgs(t, dir, srv.URL, []string{"--resume"})
	s := c.waitFor("the question about sales.csv", 3*time.Minute, c.has("sales.csv:", "has changed since the session", "Resumed session"))
	// The conversation is longer than the screen: its start is above.
	c.tmux("send-keys", "-t", "q", "C-Home")
	s = c.waitFor("the start of the resumed chat", time.Minute, c.has("↓ more below"))
	for _, want := range []string{"What is the revenue by region?", "cell 1 · done"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed chat lacks %q:\n%s", want, s)
		}
	}
	c.tmux("send-keys", "-t", "q", "C-End")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the rebuilt kernel", 2*time.Minute, c.has("Kernel rebuilt"))
	c.tmux("send-keys", "-t", "q", "-l", "still there?")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("an answer from the rebuilt kernel", 2*time.Minute, c.has("Still here: rows 5 groups 4"))
	c.tmux("send-keys", "-t", "q", "-l", "/export")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the export", time.Minute, c.has("Exported:", "report.html"))
	c.tmux("send-keys", "-t", "q", "-l", "/quit")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitExit(t)
	matches, _ := filepath.Glob(filepath.Join(dir, "quarry-output", "*", "analysis.ipynb"))
	if len(matches) != 1 {
		t.Errorf("no notebook in the session folder: %v", matches)
	}
	if n := containersOf(t, c.pid); n != 0 {
		t.Errorf("%d containers left", n)
	}
}
