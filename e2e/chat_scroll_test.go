package e2e

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// Scrolled up, nothing lands out of sight unannounced: a /command's output
// brings the view down to it, and an answer that arrives while scrolled up
// is announced under the transcript until Ctrl+End shows it.
func TestChatTUIOutputWhileScrolledUp(t *testing.T) {
	requireChat(t)
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
	c.resize(80, 24)
	c.waitFor("the chat", 3*time.Minute, has("sandbox ready"))
	for range 3 {
		c.typeLine("/help")
	}
	c.waitFor("the help", time.Minute, has("Esc or Ctrl+C cancel"))
	c.keys("PPage")
	c.waitFor("the view scrolled up", time.Minute, has("↓ more below"))
	c.typeLine("/files")
	s := c.waitFor("/files", time.Minute, has("No files attached"))
	if strings.Contains(s, "↓") {
		t.Errorf("still scrolled up after /files:\n%s", s)
	}

	c.typeLine("Take your time")
	c.waitFor("the cell", time.Minute, has("running"))
	c.keys("PPage")
	c.keys("PPage")
	s = c.waitFor("the new output sign", time.Minute, has("↓ new output below · ctrl+end"))
	if strings.Contains(s, "The slow answer is here.") {
		t.Errorf("the answer is on screen while scrolled up: the test proves nothing:\n%s", s)
	}
	c.waitForHistory("the answer's end", time.Minute, func(h string) bool { return !strings.Contains(h, "answering") })
	c.keys("C-End")
	s = c.waitFor("the answer", time.Minute, has("The slow answer is here."))
	if strings.Contains(s, "↓") {
		t.Errorf("the sign stays at the bottom:\n%s", s)
	}
	c.typeLine("/quit")
	c.waitExit()
}
