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

// Ctrl+F on a figure with no display to show it on says so at once, with
// the figure's path, instead of nothing.
func TestChatTUICtrlFSaysWhatHappened(t *testing.T) {
	requireChat(t)
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			return openaitest.Text("Drawn.")
		}
		return openaitest.ToolCalls(revenueCode)
	})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("region,revenue\nNorth,1200.5\nSouth,980.25\n"), 0o644)
	c := startChat(t, dir, srv.URL, "sales.csv")
	c.waitFor("the chat", 3*time.Minute, has("sales.csv", "sandbox ready"))
	c.typeLine("Plot the revenue")
	c.waitFor("the figure", 2*time.Minute, has("Drawn.", "figure "))
	c.keys("C-f")
	s := c.waitFor("what Ctrl+F did", 10*time.Second, has("Could not open the figure"))
	flat := strings.Join(strings.Fields(s), " ")
	if !strings.Contains(flat, "there is no display to show it on (DISPLAY and WAYLAND_DISPLAY are unset)") ||
		!strings.Contains(flat, "It is at "+filepath.Join(dir, "out", "figures", "cell1-1.png")) {
		t.Errorf("Ctrl+F without a display:\n%s", s)
	}
	c.typeLine("/quit")
	c.waitExit()
}
