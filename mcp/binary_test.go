package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The tests that run the real quarry binary: built once per test run.

var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func quarryBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "quarry-mcp-bin-")
		if binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "quarry"), "github.com/quarry-cli/quarry").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "quarry")
}

// quarryEnv is the environment of a quarry under test: no user config,
// the test run's own session index (TestMain's XDG_STATE_HOME).
func quarryEnv(t testing.TB) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
}

// logWatch collects a process's stderr lines and waits for one.
type logWatch struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func watchLines(r io.Reader) *logWatch {
	w := &logWatch{added: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
			select {
			case w.added <- struct{}{}:
			default:
			}
		}
	}()
	return w
}

// wait returns the first submatch of re in a line, waiting up to d.
func (w *logWatch) wait(t testing.TB, re *regexp.Regexp, d time.Duration) string {
	t.Helper()
	deadline := time.After(d)
	for {
		w.mu.Lock()
		for _, l := range w.lines {
			if m := re.FindStringSubmatch(l); m != nil {
				w.mu.Unlock()
				if len(m) > 1 {
					return m[1]
				}
				return m[0]
			}
		}
		all := strings.Join(w.lines, "\n")
		w.mu.Unlock()
		select {
		case <-w.added:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no line matching %s within %s; stderr:\n%s", re, d, all)
		}
	}
}

var startedRE = regexp.MustCompile(`session (\S+) started for`)

// stdioQuarry starts `quarry mcp` with a client on its standard input and
// output.
func stdioQuarry(t testing.TB, root string, args ...string) (*sdk.ClientSession, *exec.Cmd, *logWatch) {
	t.Helper()
	cmd := exec.Command(quarryBinary(t), append([]string{"mcp", "--root", root, "--output-dir", t.TempDir()}, args...)...)
	cmd.Env = quarryEnv(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "binary-test", Version: "1"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := watchLines(stderr)
	t.Cleanup(func() {
		cs.Close()
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	return cs, cmd, logs
}

// The sandbox goes when the client closes standard input, and when the
// server is told to stop (SIGTERM, SIGINT).
func TestBinaryStopRemovesSandbox(t *testing.T) {
	sandboxtest.Engine(t)
	for _, how := range []string{"stdin closed", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			cs, cmd, logs := stdioQuarry(t, t.TempDir())
			if res := callTool(t, cs, "run_python", map[string]any{"code": "print('up')"}); res.IsError {
				t.Fatal(text(res))
			}
			id := logs.wait(t, startedRE, 30*time.Second)
			switch how {
			case "stdin closed":
				cs.Close()
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				cmd.Process.Signal(syscall.SIGINT)
			}
			logs.wait(t, regexp.MustCompile(`session `+id+` .*closed, its sandbox removed`), time.Minute)
			sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
		})
	}
}

// After kill -9 the sandbox stays; the next quarry mcp removes it by its
// labels as it starts, before any tool call.
func TestBinaryKill9CleanedByNextStart(t *testing.T) {
	sandboxtest.Engine(t)
	cs, cmd, logs := stdioQuarry(t, t.TempDir())
	if res := callTool(t, cs, "run_python", map[string]any{"code": "x = 1"}); res.IsError {
		t.Fatal(text(res))
	}
	id := logs.wait(t, startedRE, 30*time.Second)
	cmd.Process.Kill()
	cmd.Wait()
	cs.Close()
	if !left(t, id) {
		t.Fatal("nothing was left after kill -9: the test proves nothing")
	}
	_, _, next := stdioQuarry(t, t.TempDir())
	next.wait(t, regexp.MustCompile(`removed \d+ sandbox objects left by earlier runs`), time.Minute)
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}

// left tells whether a container of the session still exists.
func left(t *testing.T, id string) bool {
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=io.quarry.session="+id).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.TrimSpace(string(out)) != ""
}

// httpQuarry starts `quarry mcp --http` on a free loopback port and
// returns its endpoint and token.
func httpQuarry(t *testing.T, root string, args ...string) (endpoint, token string, logs *logWatch) {
	t.Helper()
	tokFile := filepath.Join(t.TempDir(), "token")
	cmd := exec.Command(quarryBinary(t), append([]string{"mcp", "--http", "127.0.0.1:0", "--token-file", tokFile, "--root", root, "--output-dir", t.TempDir()}, args...)...)
	cmd.Env = quarryEnv(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs = watchLines(stderr)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
		}
	})
	endpoint = logs.wait(t, regexp.MustCompile(`serving MCP at (http://\S+/mcp);`), 30*time.Second)
	b, err := os.ReadFile(tokFile)
	if err != nil {
		t.Fatal(err)
	}
	return endpoint, strings.TrimSpace(string(b)), logs
}

// tokenProxy is a loopback proxy that adds the token to each request, for
// a client that cannot send headers of its own; it passes the Host and
// Origin it was sent, so quarry's checks see what the client sent.
func tokenProxy(t *testing.T, endpoint, token string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	direct := p.Director
	p.Director = func(r *http.Request) {
		direct(r)
		r.Header.Set("Authorization", "Bearer "+token)
	}
	p.FlushInterval = -1                    // server-sent events as they come
	p.ErrorLog = log.New(io.Discard, "", 0) // a stream the suite drops is no failure
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
	})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://localhost:" + port + "/mcp"
}
