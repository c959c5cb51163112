package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

func plain(m *Model) string { return ansi.Strip(screen(m)) }

func TestStreamingIsThrottledAndFinishedOnTurnDone(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	_, cmd := m.Update(inboxMsg{eventMsg{turn: m.turn, ev: agent.Event{Kind: agent.EventText, Text: "Hello"}}})
	if cmd == nil || !m.streamTick {
		t.Fatal("first delta should schedule a render tick")
	}
	first := plain(m)
	m.Update(inboxMsg{eventMsg{turn: m.turn, ev: agent.Event{Kind: agent.EventText, Text: " world"}}})
	if plain(m) != first {
		t.Fatal("a delta re-rendered before the tick")
	}
	m.Update(streamTickMsg{})
	if !strings.Contains(plain(m), "Hello world") {
		t.Fatalf("tick did not show the text:\n%s", plain(m))
	}
	feed(m, agent.Event{Kind: agent.EventTurnDone, Text: "Hello world."})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	if m.running || m.cur != nil || strings.Count(plain(m), "Hello world") != 1 {
		t.Fatalf("turn not finished cleanly (running=%v):\n%s", m.running, plain(m))
	}
	if m.streamTick = false; m.cellTick {
		t.Fatal("a cell tick is still scheduled while idle")
	}
}

func TestRetryVoidsUnfinishedDeltas(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventText, Text: "half an ans"},
		agent.Event{Kind: agent.EventRetry, Text: "HTTP 502", Wait: time.Second, Attempt: 2},
		agent.Event{Kind: agent.EventText, Text: "The full answer."})
	m.Update(streamTickMsg{})
	s := plain(m)
	if strings.Contains(s, "half an ans") || !strings.Contains(s, "The full answer.") || !strings.Contains(s, "retrying in 1.0s") {
		t.Fatalf("retry not handled:\n%s", s)
	}
}

func TestCellStatesAndFolding(t *testing.T) {
	m, _ := newTestModel(t, 80, 40, true)
	typeText(m, "q")
	m.Update(press("enter"))
	var out strings.Builder
	for i := 1; i <= 20; i++ {
		out.WriteString("line " + strings.Repeat("x", i%3) + "\n")
	}
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "print(1)", Time: fixedNow.Add(-3 * time.Second)})
	if s := plain(m); !strings.Contains(s, "cell 1 · running 3s") || !strings.Contains(s, "cell 1 3s") {
		t.Fatalf("running state missing:\n%s", s)
	}
	feed(m, agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: out.String(), Duration: 2 * time.Second}},
		agent.Event{Kind: agent.EventCellStart, Cell: 2, Code: "1/0"},
		agent.Event{Kind: agent.EventCellDone, Cell: 2, Result: &kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "ZeroDivisionError", Message: "division by zero"}}},
		agent.Event{Kind: agent.EventCellStart, Cell: 3, Code: "sleep()"},
		agent.Event{Kind: agent.EventCellDone, Cell: 3, Result: &kernel.Result{Error: &kernel.Error{Kind: kernel.ErrInterrupted, Message: "interrupted"}}})
	s := plain(m)
	for _, want := range []string{"cell 1 · done in 2.0s", "14 earlier lines (ctrl+o expands)", "cell 2 · failed: ZeroDivisionError", "cell 3 · interrupted"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	m.Update(press("ctrl+o"))
	if s := plain(m); strings.Contains(s, "earlier lines") {
		t.Errorf("ctrl+o did not expand:\n%s", s)
	}
}

func TestCtrlCCancelsRunThenTwiceQuits(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	if !m.running {
		t.Fatal("not running after enter")
	}
	_, cmd := m.Update(press("ctrl+c"))
	if cmd != nil {
		t.Fatal("ctrl+c during a run must not quit")
	}
	if m.cancelTurn == nil {
		t.Fatal("no turn to cancel")
	}
	m.Update(inboxMsg{turnEndMsg{turn: m.turn, err: contextCanceled()}})
	if m.running || !strings.Contains(plain(m), "Interrupted. The chat and the kernel's variables are kept.") {
		t.Fatalf("cancel not reported:\n%s", plain(m))
	}
	if !strings.Contains(plain(m), "q") {
		t.Fatal("chat lost")
	}
	_, cmd = m.Update(press("ctrl+c"))
	if cmd != nil || !strings.Contains(plain(m), "Press Ctrl+C again to quit.") {
		t.Fatal("first ctrl+c at idle should only warn")
	}
	_, cmd = m.Update(press("ctrl+c"))
	if cmd == nil {
		t.Fatal("second ctrl+c should quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("second ctrl+c did not return tea.Quit")
	}
}

func TestUntrustedTextIsSanitized(t *testing.T) {
	m, _ := newTestModel(t, 80, 30, true)
	typeText(m, "q")
	m.Update(press("enter"))
	evil := "ok \x1b]0;pwned\x07 \x1b[2J \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \u202e"
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "print(1) " + evil},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: evil, Error: &kernel.Error{Kind: kernel.ErrException, Type: "E\x1b[31m", Message: evil}}},
		agent.Event{Kind: agent.EventWarning, Text: evil},
		agent.Event{Kind: agent.EventTurnDone, Text: evil})
	s := screen(m)
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "http://evil", "\u202e", "\x07"} {
		if strings.Contains(s, bad) {
			t.Errorf("untrusted escape %q reached the screen", bad)
		}
	}
}

func TestResizeLongLinesAndWideUnicode(t *testing.T) {
	m, _ := newTestModel(t, 80, 30, true)
	typeText(m, "q")
	m.Update(press("enter"))
	long := strings.Repeat("数据分析🙂", 40) + strings.Repeat("x", 500)
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "print('" + long + "')"},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: long}},
		agent.Event{Kind: agent.EventTurnDone, Text: long})
	for _, w := range []int{80, 33, 120, 21} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		lines := strings.Split(screen(m), "\n")
		if len(lines) != 30 {
			t.Errorf("width %d: %d lines, want 30", w, len(lines))
		}
		for i, l := range lines {
			if got := ansi.StringWidth(l); got > w {
				t.Errorf("width %d: line %d is %d cells wide", w, i, got)
			}
		}
	}
}

func TestTableViewerSortsAndScrolls(t *testing.T) {
	m, _ := newTestModel(t, 80, 20, true)
	m.lastTable = sampleTable()
	m.Update(press("ctrl+t"))
	if m.tableView == nil {
		t.Fatal("ctrl+t did not open the table")
	}
	m.Update(press("right")) // revenue
	m.Update(press("s"))
	if got := m.tableView.rows[0].cells[1]; got != "West" {
		t.Fatalf("ascending revenue: first row %q, want West", got)
	}
	m.Update(press("s"))
	if got := m.tableView.rows[0].cells[1]; got != "East" {
		t.Fatalf("descending revenue: first row %q, want East", got)
	}
	v := m.View()
	if !strings.Contains(ansi.Strip(v.Content), "revenue ↓") {
		t.Fatalf("sort arrow missing:\n%s", ansi.Strip(v.Content))
	}
	m.Update(press("q"))
	if m.tableView != nil {
		t.Fatal("q did not close the table")
	}
}

func TestConfirmPromptAnswers(t *testing.T) {
	m, _ := newTestModel(t, 80, 30, true)
	reply := make(chan confirmReply, 1)
	m.Update(inboxMsg{confirmRequest{cell: 4, code: "df.head()", reply: reply}})
	if s := plain(m); !strings.Contains(s, "Run cell 4?") || !strings.Contains(s, "df.head()") {
		t.Fatalf("prompt missing:\n%s", s)
	}
	typeText(m, "x") // ignored
	m.Update(press("y"))
	select {
	case r := <-reply:
		if !r.run || r.code != "df.head()" {
			t.Fatalf("reply %+v", r)
		}
	default:
		t.Fatal("no reply")
	}
	if m.confirm != nil || m.input.value() != "" {
		t.Fatal("prompt not closed or key leaked into the input")
	}
}

func TestScrollKeysWheelAndFollow(t *testing.T) {
	m, _ := newTestModel(t, 60, 20, true)
	for i := 0; i < 30; i++ {
		m.transcript.add(&block{kind: kindUser, text: "message number " + string(rune('A'+i%26))})
	}
	if !(m.transcript.anchor == nil) || !strings.Contains(plain(m), "message number D") {
		t.Fatalf("not following the bottom:\n%s", plain(m))
	}
	m.Update(press("pgup"))
	if m.transcript.anchor == nil {
		t.Fatal("pgup did not scroll")
	}
	above := func() string { s, _, _ := strings.Cut(plain(m), "↓"); return s }
	top := above()
	if !strings.Contains(plain(m), "↓ more below · ctrl+end") {
		t.Fatalf("no sign of the view being scrolled up:\n%s", plain(m))
	}
	// New output below does not move a scrolled view; the separator says
	// it came.
	m.transcript.add(&block{kind: kindUser, text: "newest"})
	if above() != top {
		t.Fatal("view moved while scrolled up")
	}
	if !strings.Contains(plain(m), "↓ new output below · ctrl+end") {
		t.Fatalf("no sign of the new output:\n%s", plain(m))
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	m.Update(press("ctrl+home"))
	if !strings.Contains(plain(m), "message number A") {
		t.Fatalf("ctrl+home not at the top:\n%s", plain(m))
	}
	for i := 0; i < 20; i++ {
		m.Update(press("pgdown"))
	}
	if !(m.transcript.anchor == nil) || !strings.Contains(plain(m), "newest") || strings.Contains(plain(m), "↓") {
		t.Fatalf("pgdown to the end did not resume following:\n%s", plain(m))
	}
	// A /command's output shows: the view jumps to it, as for a question.
	m.Update(press("pgup"))
	run(t, m, "/files")
	if m.transcript.anchor != nil || !strings.Contains(plain(m), "No files attached") {
		t.Fatalf("/files printed out of sight:\n%s", plain(m))
	}
}

func TestEscCancelsRun(t *testing.T) {
	m, _ := newTestModel(t, 60, 20, true)
	typeText(m, "q")
	m.Update(press("enter"))
	cancelled := false
	m.cancelTurn = func() { cancelled = true }
	m.Update(press("esc"))
	if !cancelled {
		t.Fatal("esc did not cancel the run")
	}
}

func TestBackgroundQuerySetsTheme(t *testing.T) {
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Getenv: testEnv(true)})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.theme.dark || m.style != render.StyleLight {
		t.Fatalf("white background: dark=%v style=%s", m.theme.dark, m.style)
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if !m.theme.dark || m.style != render.StyleDark {
		t.Fatalf("black background: dark=%v style=%s", m.theme.dark, m.style)
	}
	// An explicit theme wins over the terminal's answer.
	m = New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "light", Getenv: testEnv(true)})
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if m.theme.dark {
		t.Fatal("theme = light was overridden")
	}
}

func TestNoColorMarkdownHasNoColour(t *testing.T) {
	env := map[string]string{"NO_COLOR": "1", "TERM": "xterm-256color"}
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: func(k string) string { return env[k] }})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	b := m.transcript.add(&block{kind: kindAssistant, text: "## Regional revenue\n\nSome **bold** and `code`."})
	// The "quarry" header is quarry's own style (the renderer drops its
	// colour under NO_COLOR); the Markdown below carries no colour, and
	// shows emphasis as bold rather than as its markup.
	colour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[;m]`)
	text := strings.Join(b.lines(m.rc())[1:], "\n")
	if colour.MatchString(text) {
		t.Fatalf("NO_COLOR: a colour in %q", text)
	}
	if strings.Contains(text, "**") || strings.Contains(text, "##") || !strings.Contains(text, "\x1b[1mbold") {
		t.Fatalf("NO_COLOR: emphasis as markup, or none: %q", text)
	}
}

func TestCtrlFOpensLatestFigure(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "opened")
	var opened string
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: testEnv(true),
		Open: func(p string) *exec.Cmd { opened = p; return exec.Command("touch", marker) }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	_, cmd := m.Update(press("ctrl+f"))
	if cmd != nil || !strings.Contains(plain(m), "No figure yet.") {
		t.Fatal("ctrl+f without a figure should only say so")
	}
	m.lastFigure = "/tmp/out/fig1.png"
	_, cmd = m.Update(press("ctrl+f"))
	drain(t, m, cmd)
	if opened != "/tmp/out/fig1.png" {
		t.Fatalf("opened %q", opened)
	}
	for i := 0; i < 50; i++ {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the viewer command did not run")
}

func TestLongCodeIsFolded(t *testing.T) {
	m, _ := newTestModel(t, 80, 60, true)
	typeText(m, "q")
	m.Update(press("enter"))
	var code []string
	for i := 0; i < 40; i++ {
		code = append(code, fmt.Sprintf("x%d = %d", i, i))
	}
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: strings.Join(code, "\n")},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{}})
	if s := plain(m); !strings.Contains(s, "… 27 more lines (ctrl+o expands)") || strings.Contains(s, "x39 = 39") {
		t.Fatalf("code not folded:\n%s", s)
	}
	m.Update(press("ctrl+o"))
	if s := plain(m); !strings.Contains(s, "x39 = 39") {
		t.Fatalf("code not expanded:\n%s", s)
	}
}

// TestCtrlCQuitsWhenCancelHangs: a cancelled turn that never ends (a stuck
// engine) must not trap the user: after the cancelling Ctrl+C, two more quit.
func TestCtrlCQuitsWhenCancelHangs(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	if _, cmd := m.Update(press("ctrl+c")); cmd != nil {
		t.Fatal("the first ctrl+c must only cancel")
	}
	_, cmd := m.Update(press("ctrl+c"))
	if cmd != nil || !strings.Contains(plain(m), "Still cancelling: press Ctrl+C again to quit.") {
		t.Fatalf("the second ctrl+c should warn:\n%s", plain(m))
	}
	_, cmd = m.Update(press("ctrl+c"))
	if cmd == nil {
		t.Fatal("the third ctrl+c did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("the third ctrl+c did not return tea.Quit")
	}
}

// A large upload's progress lines show in the status bar while it runs
// and go away with it.
func TestUploadProgressInStatusBar(t *testing.T) {
	m, _ := newTestModel(t, 120, 24, true)
	m.attaching++
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "busy"}})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventProgress, Text: "copying ledger.csv into the sandbox: 762.9 MiB of 1.5 GiB (50%)"}})
	if s := plain(m); !strings.Contains(s, "sandbox busy: copying ledger.csv into the sandbox: 762.9 MiB of 1.5 GiB (50%)") {
		t.Fatalf("upload progress not shown:\n%s", s)
	}
	attachedAs(m, "ledger.csv", kernel.Profile{Name: "ledger.csv"})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "ready"}})
	if s := plain(m); strings.Contains(s, "copying") || !strings.Contains(s, "sandbox ready") {
		t.Fatalf("progress left after the upload:\n%s", s)
	}
}

// A warning of the session's own (a sandbox limit the engine does not
// enforce) is shown in the transcript, not dropped.
func TestSessionWarningShown(t *testing.T) {
	m, _ := newTestModel(t, 120, 24, true)
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventWarning, Text: "sandbox limits: CPU: the 2-core limit is not enforced"}})
	if s := plain(m); !strings.Contains(s, "the 2-core limit is not enforced") {
		t.Fatalf("session warning not shown:\n%s", s)
	}
}

// Ctrl+F says what came of it: opened with which program, or why not
// with the figure's path.
func TestCtrlFSaysWhatHappened(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(string) *exec.Cmd
		env  map[string]string
		want string
	}{
		{"opened", func(string) *exec.Cmd { return exec.Command("true") }, nil, "Opened fig1.png with true."},
		{"failed", func(string) *exec.Cmd { return exec.Command("sh", "-c", "echo no viewer for PNG >&2; exit 3") }, nil,
			"Could not open the figure: sh failed (exit status 3): no viewer for PNG. It is at /tmp/out/fig1.png"},
		{"missing", func(string) *exec.Cmd { return exec.Command("/no/such/opener") }, nil, "Could not open the figure: opener:"},
		{"no display", nil, map[string]string{"DISPLAY": "", "WAYLAND_DISPLAY": ""},
			"Could not open the figure: there is no display to show it on (DISPLAY and WAYLAND_DISPLAY are unset). It is at /tmp/out/fig1.png"},
	} {
		if c.open == nil && runtime.GOOS == "darwin" {
			continue
		}
		env := func(k string) string { return c.env[k] }
		m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Getenv: env, Open: c.open})
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 24})
		m.lastFigure = "/tmp/out/fig1.png"
		_, cmd := m.Update(press("ctrl+f"))
		if !strings.Contains(plain(m), "Opening fig1.png…") {
			t.Errorf("%s: no sign while it opens:\n%s", c.name, plain(m))
		}
		drain(t, m, cmd)
		if !strings.Contains(plain(m), c.want) {
			t.Errorf("%s: screen lacks %q:\n%s", c.name, c.want, plain(m))
		}
	}
}

// The turn's error is on screen but the session is still finishing (the
// question's checkpoint): two Ctrl+C quit, as at idle, and nothing is
// cancelled.
func TestCtrlCTwiceQuitsOnceTheTurnsErrorIsShown(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	m.Update(inboxMsg{eventMsg{turn: m.turn, ev: agent.Event{Kind: agent.EventError, Text: "the model server rejected the request (400)"}}})
	if !m.running {
		t.Fatal("the turn ended before the session said so")
	}
	if _, cmd := m.Update(press("ctrl+c")); cmd != nil || m.cancelling || !strings.Contains(plain(m), "Press Ctrl+C again to quit.") {
		t.Fatalf("first ctrl+c after the error: cancelling %v\n%s", m.cancelling, plain(m))
	}
	_, cmd := m.Update(press("ctrl+c"))
	if cmd == nil {
		t.Fatal("second ctrl+c after the error did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("second ctrl+c did not return tea.Quit")
	}
}

// A folded flood says what the chat hides and what the output cap dropped;
// Ctrl+O with nothing folded says so instead of doing nothing.
func TestFoldSaysWhatWasDropped(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	_, cmd := m.Update(press("ctrl+o"))
	drain(t, m, cmd)
	if m.expanded || !strings.Contains(plain(m), "Nothing is folded") {
		t.Fatalf("ctrl+o with nothing folded:\n%s", plain(m))
	}
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	m.transcript.add(&block{kind: kindCell, cell: &cellState{num: 1, code: "for i in range(200001): print(i)",
		result: &kernel.Result{Stdout: out.String(), Dropped: 18 << 20}}})
	s := plain(m)
	if !strings.Contains(s, "1,994 earlier lines; 18 MiB dropped by the output cap") {
		t.Fatalf("fold line:\n%s", s)
	}
	_, cmd = m.Update(press("ctrl+o"))
	drain(t, m, cmd)
	if !m.expanded {
		t.Fatal("ctrl+o with a fold did not expand")
	}
}
