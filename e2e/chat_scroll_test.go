package e2e

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Scrolled up, nothing lands out of sight unannounced: a /command's output
// brings the view down to it, and an answer that arrives while scrolled up
// is announced under the transcript until Ctrl+End shows it.
func TestChatTUIOutputWhileScrolledUp(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t)
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			return openaitest.Text("The slow answer is here.")
		}
		return openaitest.ToolCalls("import time\ntime.sleep(4)\nprint('slept')")
	})
	dir := t.TempDir()
	c := startChat(t, dir, srv.URL)
	c.tmux("resize-window", "-t", "q", "-x", "80", "-y", "24")
	c.waitFor("the chat", 3*time.Minute, c.has("sandbox ready"))
	for range 3 {
		c.tmux("send-keys", "-t", "q", "-l", "/help")
		c.tmux("send-keys", "-t", "q", "Enter")
	}
	c.waitFor("the help", time.Minute, c.has("Esc or Ctrl+C cancel"))
	c.tmux("send-keys", "-t", "q", "PPage")
	c.waitFor("the view scrolled up", time.Minute, c.has("↓ more below"))
	c.tmux("send-keys", "-t", "q", "-l", "/files")
	c.tmux("send-keys", "-t", "q", "Enter")
	s := c.waitFor("/files", time.Minute, c.has("No files attached"))
	if strings.Contains(s, "↓") {
		t.Errorf("still scrolled up after /files:\n%s", s)
	}

	c.tmux("send-keys", "-t", "q", "-l", "Take your time")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the cell", time.Minute, c.has("running"))
	c.tmux("send-keys", "-t", "q", "PPage")
	c.tmux("send-keys", "-t", "q", "PPage")
	s = c.waitFor("the new output sign", time.Minute, c.has("↓ new output below · ctrl+end"))
	if strings.Contains(s, "The slow answer is here.") {
		t.Errorf("the answer is on screen while scrolled up: the test proves nothing:\n%s", s)
	}
	c.waitFor("the answer's end", time.Minute, func(string) bool {
		return strings.Contains(c.tmux("capture-pane", "-p", "-t", "q", "-S", "-", "-E", "-"), "answering") == false
	})
	c.tmux("send-keys", "-t", "q", "C-End")
	s = c.waitFor("the answer", time.Minute, c.has("The slow answer is here."))
	if strings.Contains(s, "↓") {
		t.Errorf("the sign stays at the bottom:\n%s", s)
	}
	c.tmux("send-keys", "-t", "q", "-l", "/quit")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitExit(t)
}
