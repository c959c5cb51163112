package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/quarry-cli/quarry/agent/openaitest"
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
	requireChat(t)

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

	// The sandbox starts in the background; the file is uploaded and profiled.
	c.waitFor("the attached file's chip", 3*time.Minute, has("sales.csv", "× 3", "sandbox ready"))

	// A question: streamed answer, table, figure thumbnail with its link.
	c.typeLine("What is the revenue by region?")
	s := c.waitFor("the answer", 2*time.Minute, has("revenue is highest in the East"))
	t.Logf("screen after the answer:\n%s", s)
	for _, want := range []string{"cell 1 · done", "rows × 2 columns", "▀", "figure ", ".png"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}

	// The latest table full screen, sorted by a column.
	c.keys("C-t")
	c.waitFor("the table viewer", 10*time.Second, has("s sort", "q close", "4 rows × 2 columns"))
	c.keys("Right", "s")
	c.waitFor("the sorted table", 10*time.Second, has("revenue ↑"))
	c.keys("q")
	c.waitFor("the chat again", 10*time.Second, has("well ahead of the others."))

	// Idle means idle: no ticking while nothing runs.
	c.waitFor("the end of the turn", time.Minute, has("sandbox ready", "well ahead of the others."))
	before := cpuTicks(t, c.pid)
	time.Sleep(10 * time.Second)
	// quarry itself does nothing; Bubble Tea's 30 fps frame ticker costs
	// about 1% of a core; a ticking component would cost far more.
	if used := cpuTicks(t, c.pid) - before; used > 20 {
		t.Errorf("the idle chat used %d CPU ticks (1/100 s) in 10 s; want under 2%%", used)
	} else {
		t.Logf("idle chat: %d CPU ticks (1/100 s) in 10 s", used)
	}

	// Dropping a file pastes its path (bracketed); it is attached, not typed.
	c.paste("'" + second + "'")
	s = c.waitFor("the pasted file's chip", time.Minute, has("second file.csv", "× 2"))
	if strings.Contains(s, "› '") {
		t.Errorf("the pasted path went into the input:\n%s", s)
	}

	// Ctrl+C mid-cell cancels the run; the chat and the variables stay.
	c.typeLine("please sleep")
	c.waitFor("the running cell", time.Minute, has("cell 2 · running", "sleeping now"))
	c.keys("C-c")
	s = c.waitFor("the interruption", time.Minute, has("cell 2 · interrupted", "Interrupted. The chat"))
	t.Logf("screen after Ctrl+C:\n%s", s)
	if !strings.Contains(s, "please sleep") {
		t.Errorf("the chat was not kept:\n%s", s)
	}
	c.typeLine("are you still there?")
	c.waitFor("the variables after the interruption", time.Minute, has("Still here", "rows 5 groups 4"))

	// Ctrl+C twice at idle quits and removes the sandbox.
	c.keys("C-c")
	c.waitFor("the quit hint", 10*time.Second, has("Press Ctrl+C again to quit."))
	c.keys("C-c")
	c.waitExit()
	if s := c.history(); !strings.Contains(s, "figures and files of this session are in") {
		t.Errorf("exit message missing:\n%s", s)
	}
	requireNoContainers(t, c.pid)
}

// TestChatTUIHangUpDuringStartRemovesSandbox closes the terminal (tmux
// kill-session: SIGHUP) while the sandbox is still starting: quarry must
// exit and leave no container behind.
func TestChatTUIHangUpDuringStartRemovesSandbox(t *testing.T) {
	requireChat(t)
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	c := startChat(t, t.TempDir(), srv.URL)
	c.waitFor("the chat", time.Minute, has("sandbox"))
	// Wait until the container exists (so the hang-up lands mid-start or
	// just after), then hang up.
	deadline := time.Now().Add(time.Minute)
	for containersOf(t, c.pid) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no container appeared; screen:\n%s", c.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.hangUp()
	c.waitGone("after the hang-up", time.Minute)
	requireNoContainers(t, c.pid)
}

// cpuTicks is the user+system CPU time of a process, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
	requireChat(t)
	const urlKey = "sk-proj-CHATURLKEY0123456789abcdef"
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply {
		return openaitest.Error(400, "bad request from "+testKey+" via "+urlKey)
	})
	base := strings.Replace(srv.URL, "http://", "http://"+urlKey+"@", 1)
	dir := t.TempDir()
	c := startChat(t, dir, base)
	c.waitFor("the chat", time.Minute, has("sandbox ready"))
	c.typeLine("What is the revenue?")
	s := c.waitFor("the error", time.Minute, has("rejected the request (400)"))
	for _, k := range []string{urlKey, testKey} {
		if strings.Contains(s, k) {
			t.Errorf("the chat shows %s:\n%s", k, s)
		}
	}
	c.keys("C-c")
	c.keys("C-c")
	c.waitExit()
	all := c.history()
	tr, err := os.ReadFile(filepath.Join(dir, "out", "session.jsonl"))
	if err != nil {
		t.Fatalf("session record: %v", err)
	}
	for _, k := range []string{urlKey, testKey} {
		if strings.Contains(all, k) || strings.Contains(string(tr), k) {
			t.Errorf("%s shown after exit or in the session record:\n%s\n%s", k, all, tr)
		}
	}
}
