package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// quarry NOTEBOOK.ipynb in the chat: the notebook's cells run as the chat
// opens and show as they run (its magics, ./data/ paths, extensionless
// and SQLite inputs; its last cell fails as in Jupyter and is named), the
// model carries on with the notebook's variables, and /export writes the
// notebook's cells first.
func TestChatTUIContinuesNotebook(t *testing.T) {
	requireChat(t)
	nb := copyNotebook(t)
	dir := filepath.Dir(nb)
	// What the notebook's code prints run as plain Python on the host.
	next := "print('TOP', by_region.idxmax(), by_region.max(), 'LOG', len(log))"
	plain := plainPython(t, nb, next)
	printed := tagged.FindAllString(plain, -1)
	top := regexp.MustCompile(`(?m)^TOP .*$`).FindString(plain)
	if len(printed) != 6 || top == "" {
		t.Fatalf("plain Python printed %s", plain)
	}

	srv := carryingOn(t, next)

	c := startChatArgs(t, dir, srv.URL, []string{"sales-review.ipynb"})
	s := c.waitFor("the notebook's cells", 3*time.Minute, has("the notebook's cell 7 of 7 failed: KeyError"))
	// The chat scrolls in its own view: page up through what the cells showed.
	seen := s
	for range 12 {
		c.keys("PPage")
		time.Sleep(150 * time.Millisecond)
		seen += c.screen()
	}
	for range 12 {
		c.keys("NPage")
	}
	// Cell 5's output is longer than the chat shows unexpanded: its first
	// line (NOTES) is folded away, the rest is on screen.
	for _, want := range append(printed, "Continuing the notebook sales-review.ipynb", "cell 1 · done") {
		if strings.HasPrefix(want, "NOTES ") {
			continue
		}
		if !strings.Contains(seen, want) {
			t.Errorf("the chat lacks %q:\n%s", want, seen)
		}
	}
	c.typeLine("Which region made most, and how big is the log?")
	c.waitFor("the answer", 2*time.Minute, has("Carried on: "+top))
	if first := srv.Requests()[0]; !first.Contains(printed[len(printed)-1]) || !first.Contains("continues the notebook sales-review.ipynb") {
		t.Error("the model was not given the notebook's cells and outputs")
	}
	c.typeLine("/export")
	c.waitFor("the export", time.Minute, has("Exported:", "analysis.ipynb"))
	c.typeLine("/quit")
	c.waitExit()
	matches, _ := filepath.Glob(filepath.Join(dir, "quarry-output", "*", "analysis.ipynb"))
	if len(matches) != 1 {
		t.Fatalf("no notebook in the session folder: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	text := string(b)
	if i, j := strings.Index(text, "%matplotlib inline"), strings.Index(text, "print('TOP'"); i < 0 || j < 0 || i > j {
		t.Errorf("the exported notebook does not start with the notebook's cells (at %d, the model's at %d)", i, j)
	}
	requireNoContainers(t, c.pid)
}

// carryingOn is a model server that runs next, then answers "Carried on: "
// and what it printed.
func carryingOn(t *testing.T, next string) *openaitest.Server {
	t.Helper()
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			return openaitest.Text("Carried on: " + strings.TrimSpace(strings.TrimPrefix(last.Content, "[stdout]\n")))
		}
		return openaitest.ToolCalls(next)
	})
	return srv
}
