package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storedStdout is what Jupyter stored as each code cell's stdout and
// text/plain result.
func storedStdout(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Name string          `json:"name"`
				Text json.RawMessage `json:"text"`
				Data map[string]json.RawMessage
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var ls []string
		json.Unmarshal(raw, &ls)
		return strings.Join(ls, "")
	}
	var out []string
	for _, c := range nb.Cells {
		var b strings.Builder
		for _, o := range c.Outputs {
			if o.Name == "stdout" {
				b.WriteString(text(o.Text))
			}
			if p, ok := o.Data["text/plain"]; ok {
				b.WriteString(text(p))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// A notebook with shell lines continues in the chat: its cells run as the
// chat opens and show what Jupyter stored for them; then the model's own
// cells use shell lines too, inside the sandbox.
func TestChatTUIShellLines(t *testing.T) {
	requireChat(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "small.csv"), []byte("region,revenue\nNorth,3300\nSouth,1380\n"), 0o644)
	nb := jupyterNotebook(t, dir, "shell.ipynb", []string{
		"!ls data",
		"!cat data/small.csv",
		"!head -n 2 data/small.csv",
		"x = !wc -l data/small.csv\nx",
		"%%bash\necho rows $(tail -n +2 data/small.csv | wc -l)",
	})
	stored := storedStdout(t, nb)
	if len(stored) != 5 || !strings.Contains(stored[1], "North,3300") || !strings.Contains(stored[3], "3 data/small.csv") {
		t.Fatalf("Jupyter stored %q", stored)
	}

	next := "lines = !cat data/small.csv\n!wc -c data/small.csv\nprint('SHELL', len(lines), lines.s)"
	srv := carryingOn(t, next)
	c := startChatArgs(t, dir, srv.URL, []string{"shell.ipynb"})
	s := c.waitFor("the notebook's cells", 3*time.Minute, has("cell 5 · done"))
	for i, out := range stored {
		for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(out, "\r\n", "\n")), "\n") {
			if !strings.Contains(s, strings.TrimSpace(line)) {
				t.Errorf("cell %d: the chat lacks Jupyter's %q:\n%s", i+1, line, s)
			}
		}
	}
	c.typeLine("How many lines has the file?")
	c.waitFor("the answer", 2*time.Minute, has("Carried on: 37 data/small.csv", "SHELL 3 region,revenue North,3300 South,1380"))
	c.typeLine("/quit")
	c.waitExit()
	requireNoContainers(t, c.pid)
}
