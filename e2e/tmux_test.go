package e2e

// The one tmux driver of the chat tests: a program (quarry) in the one
// pane of a tmux server of its own, whose socket lives in the test's
// temporary folder (never the user's server, never their tmux.conf),
// typed into and read back as a user would, and gone when the test ends.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
)

// target is the tmux session (and so the window and pane) the program runs in.
const target = "q"

// pane is a program running in tmux.
type pane struct {
	t    *testing.T
	sock string
	// pid is the pane's process: the program itself (env execs it), for
	// quarry the pid its containers are labelled with.
	pid    int
	proc   proc
	closed bool
}

// paneOptions says what runs in the pane and how.
type paneOptions struct {
	dir           string   // the working directory
	width, height int      // the terminal's size in cells
	env           []string // the program's whole environment (nothing else of the test's)
	argv          []string // the program and its arguments
}

// startPane starts the program in a new tmux server of its own. The
// server is killed when the test ends, and the program must be gone by
// then (see close).
func startPane(t *testing.T, o paneOptions) *pane {
	t.Helper()
	hosttest.Tool(t, "tmux")
	tmp := t.TempDir()
	// remain-on-exit from the server's start: a program that exits at once
	// still leaves its last screen to read.
	conf := filepath.Join(tmp, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set-option -g remain-on-exit on\nset-option -g history-limit 10000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &pane{t: t, sock: filepath.Join(tmp, "tmux.sock")}
	args := []string{"-f", conf, "new-session", "-d", "-s", target, "-c", o.dir,
		"-x", strconv.Itoa(o.width), "-y", strconv.Itoa(o.height), "env", "-i"}
	args = append(append(args, o.env...), o.argv...)
	p.tmux(args...)
	t.Cleanup(p.close)
	pid, err := strconv.Atoi(strings.TrimSpace(p.tmux("display-message", "-p", "-t", target, "#{pane_pid}")))
	if err != nil {
		t.Fatalf("tmux pane pid: %v", err)
	}
	p.pid, p.proc = pid, procOf(pid)
	return p
}

// tmux runs one tmux command against the pane's server and returns its output.
func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// typeLine types text as it is, then Enter.
func (p *pane) typeLine(text string) {
	p.t.Helper()
	if strings.ContainsAny(text, "\r\n") {
		p.t.Fatalf("typeLine %q: one line, without its Enter", text)
	}
	p.tmux("send-keys", "-t", target, "-l", "--", tmuxLiteral(text))
	p.keys("Enter")
}

// tmuxLiteral escapes what tmux would read as its own syntax in one
// argument: a final ";" ends a tmux command, and "\;" is its literal ";".
func tmuxLiteral(text string) string {
	if strings.HasSuffix(text, ";") {
		return text[:len(text)-1] + `\;`
	}
	return text
}

// keys presses keys by tmux's names: "Enter", "C-c", "PPage", "C-End"…
func (p *pane) keys(names ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", target}, names...)...)
}

// paste pastes text as a terminal does when a file is dropped on it:
// bracketed, when the program asked for bracketed paste.
func (p *pane) paste(text string) {
	p.t.Helper()
	p.tmux("set-buffer", "-b", "paste", "--", text)
	p.tmux("paste-buffer", "-p", "-d", "-b", "paste", "-t", target)
}

// screen is what the terminal shows, as text.
func (p *pane) screen() string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-t", target)
}

// screenEscapes is what the terminal shows with its colours and
// attributes, as escape sequences.
func (p *pane) screenEscapes() string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-e", "-t", target)
}

// history is everything the pane printed, the scrollback included,
// wrapped lines joined.
func (p *pane) history() string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", target)
}

// waitFor waits until the screen satisfies ok and returns it; after
// timeout it fails the test, naming what it waited for, with the screen.
func (p *pane) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	p.t.Helper()
	return p.poll(what, timeout, p.screen, ok)
}

// waitForHistory is waitFor on the whole history.
func (p *pane) waitForHistory(what string, timeout time.Duration, ok func(history string) bool) string {
	p.t.Helper()
	return p.poll(what, timeout, p.history, ok)
}

func (p *pane) poll(what string, timeout time.Duration, capture func() string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", timeout, what, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// has is true of a screen holding every one of subs.
func has(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, x := range subs {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	}
}

// matches is true of a screen that the regular expression matches.
func matches(pattern string) func(string) bool {
	re := regexp.MustCompile(pattern)
	return re.MatchString
}

// resize makes the terminal width×height cells.
func (p *pane) resize(width, height int) {
	p.t.Helper()
	p.tmux("resize-window", "-t", target, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height))
}

// hangUp closes the terminal under the program (SIGHUP), as closing its
// window does; the program's last screen is lost with it.
func (p *pane) hangUp() {
	p.t.Helper()
	p.tmux("kill-session", "-t", target)
}

// waitExit waits up to a minute for the program to exit (its pane stays,
// dead, with its last screen) and returns its exit status (-1 when a
// signal ended it).
func (p *pane) waitExit() int {
	p.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := strings.Fields(p.tmux("display-message", "-p", "-t", target, "#{pane_dead} #{pane_dead_status}"))
		if len(st) > 0 && st[0] == "1" {
			code := -1
			if len(st) > 1 {
				code, _ = strconv.Atoi(st[1])
			}
			return code
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the program did not exit within a minute; screen:\n%s", p.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitGone waits until the program's process has ended (after a hang-up:
// its pane is gone too, so nothing is left to ask tmux).
func (p *pane) waitGone(what string, timeout time.Duration) {
	p.t.Helper()
	if !p.proc.gone(timeout) {
		p.t.Fatalf("process %d still running %s after %s", p.pid, what, timeout)
	}
}

// close kills the tmux server (the program gets SIGHUP, as from a closed
// terminal) and makes sure the program is gone: one still running a
// minute later is killed, what it left in the engine removed, and the
// test fails. Tests call it to end a chat before the next; it runs again,
// doing nothing, when the test ends.
func (p *pane) close() {
	p.t.Helper()
	if p.closed {
		return
	}
	p.closed = true
	exec.Command("tmux", "-S", p.sock, "kill-server").Run()
	if p.pid == 0 || p.proc.gone(time.Minute) {
		return
	}
	syscall.Kill(p.pid, syscall.SIGKILL)
	p.t.Errorf("process %d still running a minute after its terminal closed: killed", p.pid)
	if !p.proc.gone(10 * time.Second) {
		p.t.Errorf("process %d survives SIGKILL", p.pid)
	}
	removeLabelled(p.t, p.pid)
}

// proc is a process that is not the test's child: its pid and its start
// time, so a pid the system gave to another process since counts as gone.
type proc struct {
	pid   int
	start string
}

func procOf(pid int) proc {
	_, start, _ := procStat(pid)
	return proc{pid: pid, start: start}
}

// procStat reads the state and the start time of pid from /proc.
func procStat(pid int) (state, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", "", false
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 20 {
		return "", "", false
	}
	return f[0], f[19], true
}

// gone waits until the process has exited (a zombie, waiting for tmux or
// init to reap it, has), and says whether it did within timeout.
func (p proc) gone(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		state, start, ok := procStat(p.pid)
		if !ok || state == "Z" || start != p.start {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The driver itself, on a shell that writes each line it reads to a file:
// what typeLine types arrives byte for byte (tmux's own syntax included),
// the screen reads back plain and with its escapes, resize reaches the
// program, the exit status is seen, and nothing is left when it ends.
func TestTmuxDriver(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "lines")
	script := `printf '\033[31mred\033[0m plain\n'
while IFS= read -r line; do
	case $line in
	size) stty size ;;
	exit) exit 3 ;;
	*) printf '%s\n' "$line" >>"$1" ;;
	esac
done`
	p := startPane(t, paneOptions{dir: dir, width: 50, height: 10,
		env: []string{"PATH=" + os.Getenv("PATH")}, argv: []string{"sh", "-c", script, "sh", got}})
	p.waitFor("the shell's first line", 10*time.Second, has("red plain"))
	if e := p.screenEscapes(); !strings.Contains(e, "\x1b[31mred") {
		t.Errorf("the screen with escapes lacks the red:\n%q", e)
	}
	if s := p.screen(); strings.Contains(s, "\x1b") {
		t.Errorf("the plain screen holds escapes:\n%q", s)
	}
	lines := []string{
		"-l leading dash, as a flag would be",
		"ends with a semicolon;",
		";",
		`ends with an escaped semicolon\;`,
		`quotes ' " $HOME \ ; and ~ inside`,
		"  spaces around, a\ttab  ",
		"€ … ünïcödé 東京",
		"Enter",
		"C-c",
	}
	for _, l := range lines {
		p.typeLine(l)
	}
	p.typeLine("size")
	p.waitFor("the size", 10*time.Second, matches(`(?m)^10 50$`))
	want := strings.Join(lines, "\n") + "\n"
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(got); string(b) != want; b, _ = os.ReadFile(got) {
		if time.Now().After(deadline) {
			t.Fatalf("the shell read\n%q\nwant\n%q", b, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.resize(60, 12)
	p.typeLine("size")
	p.waitFor("the new size", 10*time.Second, matches(`(?m)^12 60$`))
	p.typeLine("exit")
	if code := p.waitExit(); code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	if s := p.history(); !strings.Contains(s, "red plain") || !strings.Contains(s, "東京") {
		t.Errorf("the history lacks the shell's lines:\n%s", s)
	}
	p.close()
	if exec.Command("tmux", "-S", p.sock, "has-session").Run() == nil {
		t.Error("the tmux server runs on after close")
	}

	// A hang-up ends the program; close then finds nothing to do.
	p = startPane(t, paneOptions{dir: dir, width: 50, height: 10, env: []string{"PATH=" + os.Getenv("PATH")}, argv: []string{"sleep", "300"}})
	p.hangUp()
	p.waitGone("after the hang-up", 10*time.Second)
}
