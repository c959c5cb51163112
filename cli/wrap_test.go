package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/hosttest"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// quarryBinary builds quarry once for the tests that run it on a terminal.
func quarryBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "quarry-cli-test-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "quarry")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/quarry-cli/quarry").CombinedOutput(); err != nil {
			binErr = err
			t.Logf("go build:\n%s", out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// A command's own words are wrapped at the terminal's width at word
// boundaries (the terminal would cut "h" / "ttp://…"); piped, each line
// stays whole for whatever reads it.
func TestCommandTextWrapsOnATerminal(t *testing.T) {
	script := hosttest.Tool(t, "script")
	bin := quarryBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "OPENAI_API_KEY=", "OPENAI_BASE_URL=",
		"QUARRY_MODEL=", "QUARRY_PROFILE=", "QUARRY_BASE_URL=", "TERM=xterm-256color", "NO_COLOR=1")
	const cols = 50
	cmd := exec.Command(script, "-qec", "stty cols 50 rows 40; "+bin+" config check", os.DevNull)
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	text := strings.ReplaceAll(ansi.Strip(string(out)), "\r", "")
	if !strings.Contains(text, "no model is set up") {
		t.Fatalf("no message:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if ansi.StringWidth(l) > cols {
			t.Errorf("a line wider than the terminal (%d): %q", ansi.StringWidth(l), l)
		}
	}
	if !strings.Contains(text, "http://127.0.0.1:11434") {
		t.Errorf("the address was cut:\n%s", text)
	}

	piped := exec.Command(bin, "config", "check")
	piped.Env = env
	var stderr bytes.Buffer
	piped.Stderr = &stderr
	piped.Run()
	first, _, _ := strings.Cut(stderr.String(), "\n")
	if !strings.Contains(first, "no model is set up") || len(first) <= cols {
		t.Errorf("piped, the first line is not whole: %q", first)
	}
}
