package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A bug that panics mid-turn must not reach the user as a Go trace with
// exit status 2 (the status of bad input): Run reports it, exits 1 and
// still removes the container.
func TestPanicAfterStartExit1NoContainer(t *testing.T) {
	sandboxtest.Engine(t)
	srv := openaitest.New(t, openaitest.ToolCalls("print(1)"))
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code, panicked := func() (code int, panicked any) {
		defer func() { panicked = recover() }()
		return Run(context.Background(), Options{
			Prompt: "x",
			Config: config.Config{Model: "gpt-fake", BaseURL: srv.URL, APIKey: "sk-panic-test-key",
				ToolMode: "native", Timeout: 30 * time.Second, MaxSteps: 3},
			OutputDir: out, NoResolve: true, Quiet: true, Stdout: &stdout, Stderr: &stderr,
			Agent: func(c *agent.Config) {
				c.Confirm = func(context.Context, int, string) (string, bool, error) { panic("boom") }
			},
		}), nil
	}()
	if panicked != nil {
		t.Errorf("Run panicked: %v", panicked)
	}
	if code != ExitFailed || !strings.Contains(stderr.String(), "internal error") || stdout.Len() != 0 {
		t.Errorf("code %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
	if strings.Contains(stderr.String(), "sk-panic-test-key") {
		t.Errorf("stderr shows the key: %q", stderr.String())
	}
	requireSessionGone(t, sessionFromTranscript(t, out))
}

// sessionFromTranscript reads the session id from the transcript's header.
func sessionFromTranscript(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	var h struct{ Session string }
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Session == "" {
		t.Fatalf("transcript header %q: %v", sc.Text(), err)
	}
	return h.Session
}

// requireSessionGone fails when the engine still has a container or volume
// of the session.
func requireSessionGone(t *testing.T, id string) {
	t.Helper()
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}
