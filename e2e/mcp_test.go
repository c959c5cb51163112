package e2e

// quarry mcp as a client runs it: on standard input and output, or over
// HTTP; what it leaves in the engine when the client goes, when it is
// stopped and after kill -9.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// mcpServer is one quarry mcp process.
type mcpServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// mcpEnv is what quarry mcp gets: no model at all, a home of its own.
func mcpEnv(home string) []string {
	return append(hostEnv(home), "NO_COLOR=1")
}

// startMCPStdio starts quarry mcp on a pipe pair with the SDK's client on
// the other end; home, when given, is the home (config, session index) it
// shares with later runs.
func startMCPStdio(t *testing.T, root string, home ...string) (*sdk.ClientSession, *mcpServer) {
	t.Helper()
	cmd := exec.Command(quarryBin(t), "mcp", "--root", root, "--output-dir", t.TempDir())
	cmd.Env = mcpEnv(append(home, t.TempDir())[0])
	s := &mcpServer{t: t, cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		s.kill()
	})
	return cs, s
}

// kill ends a server the test left running and removes what it left.
func (s *mcpServer) kill() {
	if s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	removeLabelled(s.t, s.cmd.Process.Pid)
}

var sessionStarted = regexp.MustCompile(`session (\S+) started for`)

// session is the id of the quarry session the server's log says started.
func (s *mcpServer) session() string {
	s.t.Helper()
	waitFor(s.t, s.stderr, " started for ", 30*time.Second)
	return sessionStarted.FindStringSubmatch(s.stderr.String())[1]
}

func callMCP(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// The sandbox goes when the client closes standard input, and when the
// server is told to stop (SIGTERM, SIGINT: exit 130). The signals go to a
// server fed by the test itself, so that no client's transport waits for
// the process beside the test.
func TestMCPStopRemovesSandbox(t *testing.T) {
	sandboxtest.Engine(t)
	t.Run("stdin closed", func(t *testing.T) {
		cs, srv := startMCPStdio(t, t.TempDir())
		if res := callMCP(t, cs, "run_python", map[string]any{"code": "print('up')"}); res.IsError {
			t.Fatal(resultText(res))
		}
		id := srv.session()
		cs.Close()
		waitFor(t, srv.stderr, "session "+id+" of e2e closed, its sandbox removed", time.Minute)
		sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
	})
	for name, sig := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT} {
		t.Run(name, func(t *testing.T) {
			srv := startRawMCP(t)
			waitFor(t, srv.stdout, `"id":2`, 2*time.Minute)
			m := sessionStarted.FindStringSubmatch(srv.stderr.String())
			if m == nil {
				t.Fatalf("no session started:\n%s", srv.stderr.String())
			}
			srv.cmd.Process.Signal(sig)
			srv.cmd.Wait()
			if code := srv.cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit %d after %s, want 130\n%s", code, name, srv.stderr.String())
			}
			if !strings.Contains(srv.stderr.String(), "session "+m[1]+" of e2e closed, its sandbox removed") {
				t.Errorf("the session's end is not said:\n%s", srv.stderr.String())
			}
			sandboxtest.RequireNothingLeft(t, "io.quarry.session="+m[1])
		})
	}
}

// After kill -9 the sandbox stays; the next quarry mcp removes it by its
// labels as it starts, before any tool call.
func TestMCPKill9CleanedByNextStart(t *testing.T) {
	sandboxtest.Engine(t)
	cs, srv := startMCPStdio(t, t.TempDir())
	if res := callMCP(t, cs, "run_python", map[string]any{"code": "x = 1"}); res.IsError {
		t.Fatal(resultText(res))
	}
	id := srv.session()
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
	cs.Close()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=io.quarry.session="+id).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("nothing was left after kill -9 (%v): the test proves nothing", err)
	}
	_, next := startMCPStdio(t, t.TempDir())
	waitFor(t, next.stderr, "engine objects left by earlier runs", time.Minute)
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}

// startMCPHTTP starts quarry mcp --http on a free loopback port and
// returns its endpoint and token.
func startMCPHTTP(t *testing.T, root string, args ...string) (endpoint, token string, srv *mcpServer) {
	t.Helper()
	tokFile := filepath.Join(t.TempDir(), "token")
	cmd := exec.Command(quarryBin(t), append([]string{"mcp", "--http", "127.0.0.1:0", "--token-file", tokFile, "--root", root, "--output-dir", t.TempDir()}, args...)...)
	cmd.Env = mcpEnv(t.TempDir())
	srv = &mcpServer{t: t, cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = srv.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			srv.kill()
		}
	})
	waitFor(t, srv.stderr, "serving MCP at http://", 30*time.Second)
	endpoint = regexp.MustCompile(`serving MCP at (http://\S+/mcp);`).FindStringSubmatch(srv.stderr.String())[1]
	b, err := os.ReadFile(tokFile)
	if err != nil {
		t.Fatal(err)
	}
	return endpoint, strings.TrimSpace(string(b)), srv
}

// An MCP session is a session like a chat's: quarry sessions lists it,
// export writes it, rerun runs its cells on a new file, and --resume
// continues it with a model, the kernel rebuilt from the client's cells.
func TestMCPSessionListedExportedRerunResumed(t *testing.T) {
	sandboxtest.Engine(t)
	home, root := t.TempDir(), t.TempDir()
	q1 := filepath.Join(root, "q1.csv")
	os.WriteFile(q1, []byte("department,budget\nSales,100\nHR,50\n"), 0o644)
	cs, srv := startMCPStdio(t, root, home)
	for _, c := range []struct{ tool, arg, val string }{
		{"attach_file", "path", "q1.csv"},
		{"run_python", "code", "df = pd.read_csv('/data/q1.csv')\ntotal = int(df.budget.sum())\nprint('total', total)"},
	} {
		if res := callMCP(t, cs, c.tool, map[string]any{c.arg: c.val}); res.IsError {
			t.Fatalf("%s: %s", c.tool, resultText(res))
		}
	}
	id := srv.session()
	cs.Close()
	waitFor(t, srv.stderr, "its sandbox removed", time.Minute)

	list := sessionsJSON(t, home)
	if len(list) != 1 || list[0].ID != id || list[0].Cells != 1 || !strings.Contains(list[0].Title, "run_python, called by e2e over MCP") || len(list[0].Files) != 1 {
		t.Fatalf("quarry sessions --json: %+v", list)
	}
	ex := newRun(t, "http://127.0.0.1:1/v1", "export", id, "--format", "md", "-o", "-").withoutModel().inHome(home)
	if code := ex.exec(time.Minute); code != 0 || !strings.Contains(ex.stdout.String(), "total = int(df.budget.sum())") {
		t.Fatalf("export: exit %d\n%s", code, ex.stdout.String())
	}
	q2 := filepath.Join(t.TempDir(), "q2.csv")
	os.WriteFile(q2, []byte("department,budget\nSales,300\nHR,20\n"), 0o644)
	re := newRun(t, "http://127.0.0.1:1/v1", "rerun", id, q2).withoutModel().inHome(home)
	if code := re.exec(3 * time.Minute); code != 0 || !strings.Contains(re.stdout.String(), "total 320") {
		t.Fatalf("rerun: exit %d\n%s", code, re.stdout.String())
	}

	model := openaitest.New(t, openaitest.ToolCalls("print('TOTAL', total)"))
	model.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("The total: " + req.LastToolResult())
	})
	r := newRun(t, model.URL, "-p", "what is the total?", "--resume", id, "--json").inHome(home)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("resume: exit %d", code)
	}
	if !strings.Contains(r.stdout.String(), "TOTAL 150") {
		t.Fatalf("the resumed kernel lacks the client's variables:\n%s", r.stdout.String())
	}
	requireNoContainers(t, r.cmd.Process.Pid)
}

// quarry mcp --http --warm 2 starts two sandboxes ahead of any client;
// on SIGTERM they go, with their folders; after kill -9 the next quarry's
// start removes them by their labels.
func TestMCPWarmPoolGoesAtExitAndAfterKill9(t *testing.T) {
	sandboxtest.Engine(t)
	for _, kill := range []bool{false, true} {
		t.Run(map[bool]string{false: "SIGTERM", true: "kill-9"}[kill], func(t *testing.T) {
			out := t.TempDir()
			_, _, srv := startMCPHTTP(t, t.TempDir(), "--warm", "2", "--output-dir", out)
			pid := srv.cmd.Process.Pid
			for deadline := time.Now().Add(time.Minute); containersOf(t, pid) < 2; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d sandboxes started ahead after a minute, want 2\n%s", containersOf(t, pid), srv.stderr.String())
				}
			}
			if !kill {
				srv.cmd.Process.Signal(syscall.SIGTERM)
				srv.cmd.Wait()
				requireNoContainers(t, pid)
				if left, _ := os.ReadDir(out); len(left) > 0 {
					t.Errorf("the pool's folders are left in the output folder: %v", left)
				}
				return
			}
			srv.cmd.Process.Kill()
			srv.cmd.Wait()
			if n := containersOf(t, pid); n != 2 {
				t.Fatalf("%d sandboxes left after kill -9, want the pool's 2: the test proves nothing", n)
			}
			_, next := startMCPStdio(t, t.TempDir())
			waitFor(t, next.stderr, "engine objects left by earlier runs", time.Minute)
			requireNoContainers(t, pid)
		})
	}
}
