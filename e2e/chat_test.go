package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The chat, end to end: the real binary in tmux, the fake model server, the
// real sandbox. It asks a question and sees the streamed answer, a table and
// a figure thumbnail; pastes a file path and sees it attached; presses
// Ctrl+C mid-cell and sees the run cancelled with the chat and the kernel's
// variables intact; quits with Ctrl+C twice.

const revenueCode = `import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
df = pd.read_csv("/data/sales.csv")
by = df.groupby("region", as_index=False)["revenue"].sum()
by.plot.bar(x="region", y="revenue")
by`

func TestChatTUIEndToEnd(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t) // skips (or fails in CI) without an engine and image

	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		msgs := r.Messages()
		last := msgs[len(msgs)-1]
		user := r.LastUser()
		if last.Role == openai.ChatMessageRoleTool {
			if strings.Contains(user, "revenue") {
				return openaitest.Reply{Text: "The revenue is highest in the **East** region, well ahead of the others.", ChunkSize: 4, Delay: 20 * time.Millisecond}
			}
			return openaitest.Text("Still here: " + strings.TrimSpace(last.Content))
		}
		switch {
		case strings.Contains(user, "revenue"):
			return openaitest.ToolCalls(revenueCode)
		case strings.Contains(user, "sleep"):
			return openaitest.ToolCalls("import time\nprint('sleeping now', flush=True)\ntime.sleep(300)")
		case strings.Contains(user, "still"):
			return openaitest.ToolCalls("print('rows', len(df), 'groups', len(by))")
		}
		return openaitest.Text("ok")
	})

	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	sales := "region,revenue,units\nNorth,1200.5,10\nSouth,980.25,32\nEast,15000,7\nWest,77.7,120\nEast,300,3\n"
	if err := os.WriteFile(filepath.Join(data, "sales.csv"), []byte(sales), 0o644); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(data, "second file.csv")
	if err := os.WriteFile(second, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, dir, srv.URL, "data/sales.csv")
	tmux, waitFor, has := c.tmux, c.waitFor, c.has

	// The sandbox starts in the background; the file is uploaded and profiled.
	waitFor("the attached file's chip", 3*time.Minute, has("sales.csv", "× 3", "sandbox ready"))

	// A question: streamed answer, table, figure thumbnail with its link.
	tmux("send-keys", "-t", "q", "-l", "What is the revenue by region?")
	tmux("send-keys", "-t", "q", "Enter")
	s := waitFor("the answer", 2*time.Minute, has("revenue is highest in the East"))
	t.Logf("screen after the answer:\n%s", s)
	for _, want := range []string{"cell 1 · done", "rows × 2 columns", "▀", "figure ", ".png"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}

	// The latest table full screen, sorted by a column.
	tmux("send-keys", "-t", "q", "C-t")
	waitFor("the table viewer", 10*time.Second, has("s sort", "q close", "4 rows × 2 columns"))
	tmux("send-keys", "-t", "q", "Right", "s")
	waitFor("the sorted table", 10*time.Second, has("revenue ↑"))
	tmux("send-keys", "-t", "q", "q")
	waitFor("the chat again", 10*time.Second, has("well ahead of the others."))

	// Idle means idle: no ticking while nothing runs.
	waitFor("the end of the turn", time.Minute, has("sandbox ready", "well ahead of the others."))
	pid := strings.TrimSpace(tmux("display-message", "-p", "-t", "q", "#{pane_pid}"))
	before := cpuTicks(t, pid)
	time.Sleep(10 * time.Second)
	// quarry itself does nothing; Bubble Tea's 30 fps frame ticker costs
	// about 1% of a core; a ticking component would cost far more.
	if used := cpuTicks(t, pid) - before; used > 20 {
		t.Errorf("the idle chat used %d CPU ticks (1/100 s) in 10 s; want under 2%%", used)
	} else {
		t.Logf("idle chat: %d CPU ticks (1/100 s) in 10 s", used)
	}

	// Dropping a file pastes its path (bracketed); it is attached, not typed.
	tmux("set-buffer", "-b", "drop", "'"+second+"'")
	tmux("paste-buffer", "-p", "-d", "-b", "drop", "-t", "q")
	s = waitFor("the pasted file's chip", time.Minute, has("second file.csv", "× 2"))
	if strings.Contains(s, "› '") {
		t.Errorf("the pasted path went into the input:\n%s", s)
	}

	// Ctrl+C mid-cell cancels the run; the chat and the variables stay.
	tmux("send-keys", "-t", "q", "-l", "please sleep")
	tmux("send-keys", "-t", "q", "Enter")
	waitFor("the running cell", time.Minute, has("cell 2 · running", "sleeping now"))
	tmux("send-keys", "-t", "q", "C-c")
	s = waitFor("the interruption", time.Minute, has("cell 2 · interrupted", "Interrupted. The chat"))
	t.Logf("screen after Ctrl+C:\n%s", s)
	if !strings.Contains(s, "please sleep") {
		t.Errorf("the chat was not kept:\n%s", s)
	}
	tmux("send-keys", "-t", "q", "-l", "are you still there?")
	tmux("send-keys", "-t", "q", "Enter")
	waitFor("the variables after the interruption", time.Minute, has("Still here", "rows 5 groups 4"))

	// Ctrl+C twice at idle quits and removes the sandbox.
	tmux("send-keys", "-t", "q", "C-c")
	waitFor("the quit hint", 10*time.Second, has("Press Ctrl+C again to quit."))
	tmux("send-keys", "-t", "q", "C-c")
	c.waitExit(t)
	if s := tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "q"); !strings.Contains(s, "figures and files of this session are in") {
		t.Errorf("exit message missing:\n%s", s)
	}
	if n := containersOf(t, c.pid); n != 0 {
		t.Errorf("%d containers of quarry (pid %s) left after quitting", n, c.pid)
	}
}

// TestChatTUIHangUpDuringStartRemovesSandbox closes the terminal (tmux
// kill-session: SIGHUP) while the sandbox is still starting: quarry must
// exit and leave no container behind.
func TestChatTUIHangUpDuringStartRemovesSandbox(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t)
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	c := startChat(t, t.TempDir(), srv.URL)
	c.waitFor("the chat", time.Minute, c.has("sandbox"))
	// Wait until the container exists (so the hang-up lands mid-start or
	// just after), then hang up.
	deadline := time.Now().Add(time.Minute)
	for containersOf(t, c.pid) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no container appeared; screen:\n%s", c.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.tmux("kill-session", "-t", "q")
	deadline = time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat("/proc/" + c.pid); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("quarry did not exit after the hang-up")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := containersOf(t, c.pid); n != 0 {
		t.Errorf("%d containers of quarry (pid %s) left after the hang-up", n, c.pid)
	}
}

// requireTmux skips without tmux, or fails in CI.
func requireTmux(t *testing.T) {
	t.Helper()
	hosttest.Tool(t, "tmux")
}

// waitExit waits up to a minute for quarry to exit (the pane stays, dead).
func (c chat) waitExit(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for strings.TrimSpace(c.tmux("display-message", "-p", "-t", "q", "#{pane_dead}")) != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("quarry did not exit; screen:\n%s", c.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// chat is quarry running in a tmux session "q" of its own server.
type chat struct {
	pid     string
	tmux    func(args ...string) string
	screen  func() string
	waitFor func(what string, timeout time.Duration, ok func(string) bool) string
	has     func(subs ...string) func(string) bool
}

// startChat builds quarry and runs it in tmux (120×60) in dir against the
// fake model server, with files as arguments.
func startChat(t *testing.T, dir, modelURL string, files ...string) chat {
	t.Helper()
	return startChatArgs(t, dir, modelURL, append([]string{"--output-dir", filepath.Join(dir, "out")}, files...))
}

// startChatArgs is startChat with quarry's arguments as given; dir is also
// HOME, so chats started in one dir share their saved sessions.
func startChatArgs(t *testing.T, dir, modelURL string, args []string) chat {
	t.Helper()
	return startChatEnv(t, dir, []string{"OPENAI_API_KEY=sk-test-e2e", "OPENAI_BASE_URL=" + modelURL, "QUARRY_MODEL=gpt-4o-mini"}, args)
}

// startChatEnv runs quarry with args in tmux with nothing of the
// environment but the terminal's, the engine's and model (the model's).
func startChatEnv(t *testing.T, dir string, model, args []string) chat {
	t.Helper()
	bin := filepath.Join(dir, "quarry")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	env := []string{"env", "-i", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8"}
	env = append(env, model...)
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		env = append(env, "DOCKER_HOST="+h)
	}
	cmd := append(append(env, bin), args...)
	tmux(append([]string{"new-session", "-d", "-x", "120", "-y", "60", "-s", "q", "-c", dir}, cmd...)...)
	tmux("set-option", "-t", "q", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })

	screen := func() string { return tmux("capture-pane", "-p", "-t", "q") }
	waitFor := func(what string, timeout time.Duration, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	has := func(subs ...string) func(string) bool {
		return func(s string) bool {
			for _, x := range subs {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		}
	}

	c := chat{tmux: tmux, screen: screen, waitFor: waitFor, has: has}
	// env execs quarry: the pane's process is quarry, whose pid labels its containers.
	c.pid = strings.TrimSpace(tmux("display-message", "-p", "-t", "q", "#{pane_pid}"))
	return c
}

// containersOf counts the containers (running or not) quarry process pid
// created, by the label the sandbox puts on them.
func containersOf(t *testing.T, pid string) int {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: client.Filters{}.Add("label", "io.quarry.pid="+pid)})
	if err != nil {
		t.Fatalf("container list: %v", err)
	}
	return len(res.Items)
}

// cpuTicks is the user+system CPU time of a process, in clock ticks.
func cpuTicks(t *testing.T, pid string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var u, s int
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &s)
	return u + s
}

// TestChatTUIHidesKeys: the chat's view, its exit messages and the
// session record never show the key, whether it is the API key or written into
// the base URL, even when the server quotes both in its error.
func TestChatTUIHidesKeys(t *testing.T) {
	requireTmux(t)
	sandboxtest.Engine(t)
	const urlKey = "sk-proj-CHATURLKEY0123456789abcdef"
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply {
		return openaitest.Error(400, "bad request from sk-test-e2e via "+urlKey)
	})
	base := strings.Replace(srv.URL, "http://", "http://"+urlKey+"@", 1)
	dir := t.TempDir()
	c := startChat(t, dir, base)
	c.waitFor("the chat", time.Minute, c.has("sandbox ready"))
	c.tmux("send-keys", "-t", "q", "-l", "What is the revenue?")
	c.tmux("send-keys", "-t", "q", "Enter")
	s := c.waitFor("the error", time.Minute, c.has("rejected the request (400)"))
	for _, k := range []string{urlKey, "sk-test-e2e"} {
		if strings.Contains(s, k) {
			t.Errorf("the chat shows %s:\n%s", k, s)
		}
	}
	c.tmux("send-keys", "-t", "q", "C-c")
	c.tmux("send-keys", "-t", "q", "C-c")
	c.waitExit(t)
	all := c.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "q")
	tr, err := os.ReadFile(filepath.Join(dir, "out", "session.jsonl"))
	if err != nil {
		t.Fatalf("session record: %v", err)
	}
	for _, k := range []string{urlKey, "sk-test-e2e"} {
		if strings.Contains(all, k) || strings.Contains(string(tr), k) {
			t.Errorf("%s shown after exit or in the session record:\n%s\n%s", k, all, tr)
		}
	}
}
