package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// slowCloser stands in for the session: removing a container takes a while.
type slowCloser struct {
	d      time.Duration
	closed atomic.Bool
}

func (s *slowCloser) Close() error {
	time.Sleep(s.d)
	s.closed.Store(true)
	return nil
}

// TestCloseSandboxSurvivesInterrupt: after the chat, the terminal is in
// cooked mode again; an impatient Ctrl+C (SIGINT) or a hang-up while the
// container is removed must not kill quarry and leave the container behind.
func TestCloseSandboxSurvivesInterrupt(t *testing.T) {
	c := &slowCloser{d: 600 * time.Millisecond}
	var out bytes.Buffer
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
	}()
	closeSandbox(c, &out, 10*time.Second)
	if !c.closed.Load() {
		t.Fatal("closeSandbox returned before the sandbox was removed")
	}
	if !strings.Contains(out.String(), "still removing the sandbox") {
		t.Errorf("the interrupt was not acknowledged:\n%s", out.String())
	}
}

// TestCloseSandboxGivesUpAfterTimeout: a hung engine does not hang quarry.
func TestCloseSandboxGivesUpAfterTimeout(t *testing.T) {
	var out bytes.Buffer
	closeSandbox(&slowCloser{d: 5 * time.Second}, &out, 100*time.Millisecond)
	if !strings.Contains(out.String(), "next quarry run sweeps it") {
		t.Errorf("no timeout message:\n%s", out.String())
	}
}

// folderCloser stands in for the session at the chat's end: closing
// removes its folder when nothing was saved in it, as session.Close does
// for a chat left before any question.
type folderCloser struct{ dir string }

func (f folderCloser) Close() error      { os.Remove(f.dir); return nil }
func (f folderCloser) OutputDir() string { return f.dir }

// TestExitLineNamesOnlyAFolderThatIsThere: a chat left before any question
// ends without naming its folder, which closing removed; one that saved
// something names it.
func TestExitLineNamesOnlyAFolderThatIsThere(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "20261203-112054-3052ef")
	used := filepath.Join(t.TempDir(), "20261203-112055-1a2b3c")
	for _, d := range []string{empty, used} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(used, "session.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if line := closeChat(folderCloser{empty}, &stderr, 10*time.Second); line != "" {
		t.Errorf("a chat left before any question: exit line %q names a folder that is gone", line)
	}
	want := "quarry: figures and files of this session are in " + used
	if line := closeChat(folderCloser{used}, &stderr, 10*time.Second); line != want {
		t.Errorf("a chat with a saved session: exit line %q, want %q", line, want)
	}
	if !strings.Contains(stderr.String(), "quarry: removing the sandbox…") {
		t.Errorf("the sandbox's removal is not said:\n%s", stderr.String())
	}
}
