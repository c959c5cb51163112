package e2e

// One run of the binary without a terminal (quarry -p, rerun, sessions…):
// its arguments, environment, standard streams and exit status.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
)

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
	script string // script(1), when the run is on a pseudo-terminal
	cols   int    // that terminal's size
	rows   int
}

func newRun(t testing.TB, baseURL string, args ...string) *run {
	t.Helper()
	env := append(hostEnv(t.TempDir()), modelEnv(baseURL, "gpt-fake")...)
	return &run{t: t, args: args, env: append(env, "NO_COLOR=1"), dir: t.TempDir()}
}

// withoutModel drops the key and the model server from the environment:
// the run must not need them.
func (r *run) withoutModel() *run {
	return r.without("OPENAI_API_KEY", "OPENAI_BASE_URL", "QUARRY_MODEL")
}

// without drops the named variables from the run's environment.
func (r *run) without(names ...string) *run {
	var env []string
	for _, e := range r.env {
		name, _, _ := strings.Cut(e, "=")
		if !slices.Contains(names, name) {
			env = append(env, e)
		}
	}
	r.env = env
	return r
}

// withEngine points the run at the engine at host (a proxy in front of it).
func (r *run) withEngine(host string) *run {
	r.without("DOCKER_HOST")
	r.env = append(r.env, "DOCKER_HOST="+host)
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

// onTerminal runs r on a pseudo-terminal of cols×rows that script(1)
// gives it: what quarry prints, on stdout or stderr, arrives on r.stdout
// as the terminal got it (lines end in \r\n).
func (r *run) onTerminal(cols, rows int) *run {
	t := r.t
	t.Helper()
	r.script, r.cols, r.rows = hosttest.Tool(t, "script"), cols, rows
	return r
}

func (r *run) start() {
	r.t.Helper()
	r.cmd = exec.Command(quarryBin(r.t), r.args...)
	if r.script != "" {
		line := fmt.Sprintf("stty cols %d rows %d; exec %s", r.cols, r.rows, shellQuote(r.cmd.Args))
		r.cmd = exec.Command(r.script, "-qec", line, os.DevNull)
	}
	r.cmd.Env = r.env
	r.cmd.Dir = r.dir
	r.cmd.Stdin = r.stdin
	r.cmd.Stdout = &r.stdout
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(r.stop)
}

// stop kills a run the test left running (it failed before waiting for
// it), and removes what the run left in the engine.
func (r *run) stop() {
	if r.cmd.ProcessState != nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	removeLabelled(r.t, r.cmd.Process.Pid)
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
		removeLabelled(r.t, r.cmd.Process.Pid)
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

// shellQuote makes one sh command line of words.
func shellQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
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
