package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ssh that carries the engine's connection runs without a prompt and
// without the model's key in its environment.
func TestSSHCommandHasNoPromptAndNoKeys(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	fake := filepath.Join(dir, "fake-ssh")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n{ echo \"ARGS $*\"; env; } >"+seen+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QUARRY_SSH_COMMAND", fake)
	t.Setenv("OPENAI_API_KEY", "sk-proj-abcdefghijklmnop")
	t.Setenv("GROQ_API_KEY", "gsk_abcdefghijklmnop")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	dial, stop, err := sshDialer("ssh://me@bigbox")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if c, err := dial(t.Context(), "", ""); err == nil {
		buf := make([]byte, 1)
		_, _ = c.Read(buf) // until the fake ssh exits
		c.Close()
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the ssh command did not run: %v", err)
	}
	out := string(b)
	if !strings.Contains(out, "BatchMode=yes") {
		t.Errorf("ssh runs without BatchMode=yes:\n%s", out)
	}
	for _, leak := range []string{"sk-proj-abcdefghijklmnop", "gsk_abcdefghijklmnop", "OPENAI_API_KEY"} {
		if strings.Contains(out, leak) {
			t.Errorf("ssh's environment holds %q", leak)
		}
	}
	if !strings.Contains(out, "SSH_AUTH_SOCK=/tmp/agent.sock") {
		t.Errorf("ssh lost SSH_AUTH_SOCK:\n%s", out)
	}
}
