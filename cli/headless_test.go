package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// headlessApp is the headless mode on these streams, with a model and a
// key set up in the environment (isolateConfig first).
func headlessApp(t *testing.T, stdin io.Reader) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	t.Setenv("QUARRY_MODEL", "m")
	t.Setenv("OPENAI_API_KEY", "sk-x-0123456789")
	var stdout, stderr bytes.Buffer
	return newApp(Build{}, stdin, &stdout, &stderr), &stdout, &stderr
}

// A standard input that never closes (ssh without -n, a pipe from a
// process that keeps running) must not hold up Ctrl+C or SIGTERM.
func TestEndlessStdinIsInterruptible(t *testing.T) {
	isolateConfig(t)
	for _, prompt := range []string{"summarise", "-"} {
		pr, pw := io.Pipe()
		defer pw.Close()
		a, _, stderr := headlessApp(t, pr)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			f := &rootFlags{prompt: prompt, promptSet: true}
			f.overrides.OutputDir = filepath.Join(t.TempDir(), "out")
			done <- exitCode(a.headlessRun(ctx, f, nil))
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case code := <-done:
			if code != exitInterrupted {
				t.Errorf("--prompt %s: code %d, want %d; stderr %q", prompt, code, exitInterrupted, stderr.String())
			}
		case <-time.After(5 * time.Second):
			t.Errorf("--prompt %s: still reading stdin 5s after the interrupt", prompt)
		}
	}
}

// Bad input ends with exit 2 before any container: the run never reaches
// the session's Start (no Docker needed for this test).
func TestRunBadInputExit2(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	t.Setenv("QUARRY_OUTPUT_DIR", dir)
	missing := filepath.Join(dir, "q9.csv")
	code, stdout, stderr := runCmd(t, "-p", "x", missing)
	if code != exitUsage || !strings.Contains(stderr, missing) || stdout != "" {
		t.Fatalf("code %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("output folder created: %v", entries)
	}
}

// Ctrl+C while the configuration is resolved (the Ollama probe) is an
// interrupt (130), not "no model is set up" with the status of bad input.
func TestInterruptDuringResolveExit130(t *testing.T) {
	isolateConfig(t)
	a, _, stderr := headlessApp(t, strings.NewReader(""))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &rootFlags{prompt: "x", promptSet: true}
	f.overrides.OutputDir = filepath.Join(t.TempDir(), "out")
	err := a.headlessRun(ctx, f, nil)
	if code := exitCode(err); code != exitInterrupted || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("code %d, err %v, stderr %q", code, err, stderr.String())
	}
}

// A bad output_dir setting is bad input (2), found before Docker is asked:
// it used to fail only at the sandbox's start, with exit 1 and no fix.
func TestBadOutputParentExit2(t *testing.T) {
	isolateConfig(t)
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, parent := range []string{file, filepath.Join(file, "sub")} {
		t.Setenv("QUARRY_MODEL", "m")
		t.Setenv("OPENAI_API_KEY", "sk-x-0123456789")
		t.Setenv("QUARRY_OUTPUT_DIR", parent)
		code, _, stderr := runCmd(t, "-p", "x")
		if code != exitUsage || !strings.Contains(stderr, parent) || !strings.Contains(stderr, "output_dir") {
			t.Errorf("output_dir %s: code %d, stderr %q", parent, code, stderr)
		}
	}
}

// A bug that panics mid-turn must not reach the user as a Go trace with
// exit status 2 (the status of bad input): the guard reports it, exits 1
// and still removes the container.
func TestPanicAfterStartExit1NoContainer(t *testing.T) {
	sandboxtest.Engine(t)
	isolateConfig(t)
	srv := openaitest.New(t, openaitest.ToolCalls("print(1)"))
	out := filepath.Join(t.TempDir(), "out")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("QUARRY_TOOL_MODE", "native")
	a, stdout, stderr := headlessApp(t, strings.NewReader(""))
	t.Setenv("OPENAI_API_KEY", "sk-panic-test-key")
	f := &rootFlags{prompt: "x", promptSet: true, quiet: true}
	f.overrides.OutputDir = out
	code, panicked := func() (code int, panicked any) {
		defer func() { panicked = recover() }()
		err := a.headlessRun(context.Background(), f, func(c *agent.Config) {
			c.Confirm = func(context.Context, int, string) (string, bool, error) { panic("boom sk-panic-test-key") }
		})
		return exitCode(err), nil
	}()
	if panicked != nil {
		t.Errorf("the run panicked: %v", panicked)
	}
	if code != exitFailed || !strings.Contains(stderr.String(), "internal error") || stdout.Len() != 0 {
		t.Errorf("code %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
	if strings.Contains(stderr.String(), "sk-panic-test-key") {
		t.Errorf("stderr shows the key: %q", stderr.String())
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+sessionFromRecord(t, out))
}

// sessionFromRecord reads the session id from the session record's header.
func sessionFromRecord(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatalf("session record: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	var h struct{ ID string }
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.ID == "" {
		t.Fatalf("session record header %q: %v", sc.Text(), err)
	}
	return h.ID
}

// An engine that refuses the sandbox: `quarry -p` says so in the engine's
// own words, with the fix for that cause, and fails (exit 1).
func TestHeadlessShowsTheEnginesReason(t *testing.T) {
	sandboxtest.Engine(t)
	isolateConfig(t)
	srv := openaitest.New(t, openaitest.ToolCalls("print(1)"))
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	const why = "preparing container for attach: mkdir /var/lib/containers/storage/overlay/l: no space left on device"
	t.Setenv("DOCKER_HOST", sandboxtest.FaultProxy(t, func(r *http.Request) (int, string, bool) {
		return http.StatusInternalServerError, why, r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/attach")
	}, nil))
	code, stdout, stderr := runCmd(t, "-p", "sum it", "--output-dir", filepath.Join(t.TempDir(), "out"))
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, why) || !strings.Contains(stderr, "To fix: free space") {
		t.Fatalf("stderr lacks the engine's words or the fix:\n%s", stderr)
	}
	if strings.Contains(stderr, "unable to upgrade") {
		t.Errorf("stderr has the client's bare upgrade error:\n%s", stderr)
	}
}
