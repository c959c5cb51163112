package e2e

// Helpers of the end-to-end tests: the binary built once, one run of it,
// and the engine query that proves no container was left behind.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

const testKey = "sk-e2e-secret-0123456789abcdef"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// quarryBin builds the binary once per test run. QUARRY_TEST_BINARY names a
// prebuilt one instead, for runs as a user without Go (the rootless CI run).
func quarryBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("QUARRY_TEST_BINARY"); p != "" {
			binPath = p
			return
		}
		binDir, buildErr = os.MkdirTemp("", "quarry-e2e-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "quarry")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/quarry-cli/quarry").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// run is one invocation of the binary.
type run struct {
	t      testing.TB
	args   []string
	env    []string
	stdin  io.Reader
	dir    string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr syncBuffer
}

func newRun(t testing.TB, baseURL string, args ...string) *run {
	t.Helper()
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"OPENAI_API_KEY=" + testKey,
		"QUARRY_MODEL=gpt-fake",
		"OPENAI_BASE_URL=" + baseURL,
		"NO_COLOR=1",
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		env = append(env, "DOCKER_HOST="+h)
	}
	return &run{t: t, args: args, env: env, dir: t.TempDir()}
}

// withoutModel drops the key and the model server from the environment:
// the run must not need them.
func (r *run) withoutModel() *run {
	var env []string
	for _, e := range r.env {
		if !strings.HasPrefix(e, "OPENAI_API_KEY=") && !strings.HasPrefix(e, "OPENAI_BASE_URL=") && !strings.HasPrefix(e, "QUARRY_MODEL=") {
			env = append(env, e)
		}
	}
	r.env = env
	return r
}

// inHome makes the run use home (its config and its session index), so
// runs of one test see each other's sessions.
func (r *run) inHome(home string) *run {
	for i, e := range r.env {
		switch {
		case strings.HasPrefix(e, "HOME="):
			r.env[i] = "HOME=" + home
		case strings.HasPrefix(e, "XDG_CONFIG_HOME="):
			r.env[i] = "XDG_CONFIG_HOME=" + filepath.Join(home, "config")
		}
	}
	return r
}

func (r *run) start() {
	r.t.Helper()
	r.cmd = exec.Command(quarryBin(r.t), r.args...)
	r.cmd.Env = r.env
	r.cmd.Dir = r.dir
	r.cmd.Stdin = r.stdin
	r.cmd.Stdout = &r.stdout
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
}

// wait returns the exit status, failing the test after limit.
func (r *run) wait(limit time.Duration) int {
	r.t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		r.cmd.Process.Kill()
		<-done
		r.t.Fatalf("quarry %q still running after %s\nstderr:\n%s", r.args, limit, r.stderr.String())
	}
	return r.cmd.ProcessState.ExitCode()
}

func (r *run) exec(limit time.Duration) int {
	r.t.Helper()
	r.start()
	code := r.wait(limit)
	r.t.Logf("quarry %q → %d\nstderr:\n%s", r.args, code, r.stderr.String())
	return code
}

// syncBuffer is a bytes.Buffer safe to read while the child writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// requireNoContainers fails when the engine still has a container or
// volume labelled with the process id of the finished quarry run.
func requireNoContainers(t *testing.T, pid int) {
	t.Helper()
	sandboxtest.RequireNothingLeft(t, fmt.Sprintf("io.quarry.pid=%d", pid))
}

// waitForSandboxFile polls the sandbox of the quarry process pid until
// path exists in it: the proof that a cell got that far ("cell 1 running"
// comes before the cell's code, which may wait for the kernel's imports).
func waitForSandboxFile(t *testing.T, pid int, path string, limit time.Duration) {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	f := make(client.Filters).Add("label", fmt.Sprintf("io.quarry.pid=%d", pid))
	for ctx.Err() == nil {
		if list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: f}); err == nil {
			for _, c := range list.Items {
				if res, err := cli.CopyFromContainer(ctx, c.ID, client.CopyFromContainerOptions{SourcePath: path}); err == nil {
					res.Content.Close()
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s in the sandbox of quarry %d after %s", path, pid, limit)
}

// waitFor polls the child's stderr for a line containing s.
func waitFor(t *testing.T, b *syncBuffer, s string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(b.String()))
		for sc.Scan() {
			if strings.Contains(sc.Text(), s) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %q on stderr after %s:\n%s", s, limit, b.String())
}
