package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// quarry NOTEBOOK.ipynb in the chat: the notebook's cells run as the chat
// opens and show as they run (its magics, ./data/ paths, extensionless
// and SQLite inputs; its last cell fails as in Jupyter and is named), the
// model carries on with the notebook's variables, and /export writes the
// notebook's cells first.
func TestChatTUIContinuesNotebook(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join("headless", "testdata", "notebook"), dir)
	// What the notebook's code prints run as plain Python on the host.
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import pandas, matplotlib").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the host's python3 has no pandas: scripts/install-deps.sh test installs it")
		}
		t.Skip("the host's python3 has no pandas (scripts/install-deps.sh test installs it)")
	}
	next := "print('TOP', by_region.idxmax(), by_region.max(), 'LOG', len(log))"
	plain, _ := exec.Command(py, filepath.Join("headless", "testdata", "plain_python.py"), filepath.Join(dir, "sales-review.ipynb"), next).CombinedOutput()
	printed := regexp.MustCompile(`(?m)^(LOG|SQL|NOTES|TOTAL) .*$`).FindAllString(string(plain), -1)
	top := regexp.MustCompile(`(?m)^TOP .*$`).FindString(string(plain))
	if len(printed) != 6 || top == "" {
		t.Fatalf("plain Python printed %s", plain)
	}

	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleTool {
			return openaitest.Text("Carried on: " + strings.TrimSpace(strings.TrimPrefix(last.Content, "[stdout]\n")))
		}
		return openaitest.ToolCalls(next)
	})

	c := startChatArgs(t, dir, srv.URL, []string{"sales-review.ipynb"})
	s := c.waitFor("the notebook's cells", 3*time.Minute, c.has("the notebook's cell 7 of 7 failed: KeyError"))
	// The chat scrolls in its own view: page up through what the cells showed.
	seen := s
	for range 12 {
		c.tmux("send-keys", "-t", "q", "PPage")
		time.Sleep(150 * time.Millisecond)
		seen += c.screen()
	}
	for range 12 {
		c.tmux("send-keys", "-t", "q", "NPage")
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
	c.tmux("send-keys", "-t", "q", "-l", "Which region made most, and how big is the log?")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the answer", 2*time.Minute, c.has("Carried on: "+top))
	if first := srv.Requests()[0]; !first.Contains(printed[len(printed)-1]) || !first.Contains("continues the notebook sales-review.ipynb") {
		t.Error("the model was not given the notebook's cells and outputs")
	}
	c.tmux("send-keys", "-t", "q", "-l", "/export")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitFor("the export", time.Minute, c.has("Exported:", "analysis.ipynb"))
	c.tmux("send-keys", "-t", "q", "-l", "/quit")
	c.tmux("send-keys", "-t", "q", "Enter")
	c.waitExit(t)
	matches, _ := filepath.Glob(filepath.Join(dir, "quarry-output", "*", "analysis.ipynb"))
	if len(matches) != 1 {
		t.Fatalf("no notebook in the session folder: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	text := string(b)
	if i, j := strings.Index(text, "%matplotlib inline"), strings.Index(text, "print('TOP'"); i < 0 || j < 0 || i > j {
		t.Errorf("the exported notebook does not start with the notebook's cells (at %d, the model's at %d)", i, j)
	}
	if n := containersOf(t, c.pid); n != 0 {
		t.Errorf("%d containers left", n)
	}
}
