package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/demo/demotest"
)

// Ctrl+G in the chat, on the demo's report at 80×24, in colour and under
// NO_COLOR: the number the numbers view is on is drawn in reverse video in
// the answer, scrolled into view when it is off screen (the report's first
// number is above the fold once the answer is in; a view scrolled up to
// the top comes down to a material line's), and nothing is highlighted once
// the view is closed. None of the report's numbers is marked unverified.
func TestChatCtrlGHighlightsTheNumber(t *testing.T) {
	requireChat(t)
	for _, noColor := range []bool{false, true} {
		t.Run(map[bool]string{false: "colour", true: "NO_COLOR"}[noColor], func(t *testing.T) {
			watch, _ := demotest.Watch(t)
			dir := t.TempDir()
			env := append(hostEnv(dir), "TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8")
			if noColor {
				env = append(env, "NO_COLOR=1")
			}
			c := startPane(t, paneOptions{dir: dir, width: 80, height: 24, env: append(env, demotest.NoNetworkEnv(watch)...),
				argv: []string{quarryBin(t), "demo", "--output-dir", filepath.Join(dir, "out")}})
			s := c.waitFor("the answer", 3*time.Minute, has("Then ask about these files yourself", "sandbox ready"))
			if strings.ContainsAny(s, "⟦⟧") || strings.Contains(s, "no cell's output") {
				t.Errorf("the demo's report marks a number unverified:\n%s", s)
			}
			if strings.Contains(s, "109,900.00") {
				t.Fatalf("the report's first number is on screen already: the test proves no scrolling\n%s", s)
			}

			c.keys("C-g")
			c.waitFor("the numbers view", 10*time.Second, has("Numbers: 1 of"))
			lit := waitHighlighted(c, "109,900.00")
			if !strings.Contains(lit, "109,900.00") {
				t.Errorf("ctrl+g: highlighted %q, want the first number, 109,900.00", lit)
			}
			// Travel's variance, -3,400.00, is the ninth number.
			for i := 0; i < 8; i++ {
				c.keys("C-g")
			}
			c.waitFor("the ninth number", 10*time.Second, has("Numbers: 9 of", "▸ -3,400.00"))
			if lit := waitHighlighted(c, "-3,400.00"); !strings.Contains(lit, "-3,400.00") {
				t.Errorf("ctrl+g ×9: highlighted %q, want -3,400.00", lit)
			}
			c.keys("Escape")
			c.waitFor("the view closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Numbers: ") })
			if lit := highlightedRuns(c.screenEscapes()); strings.Contains(lit, "-3,400.00") || strings.Contains(lit, "109,900.00") {
				t.Errorf("after esc still highlighted: %q", lit)
			}

			// Scrolled to the top, the view comes to the number.
			c.keys("C-Home")
			c.waitFor("the top", 10*time.Second, has("This is quarry's demo"))
			c.keys("C-g")
			for i := 0; i < 8; i++ {
				c.keys("C-g")
			}
			c.waitFor("the ninth number", 10*time.Second, has("Numbers: 9 of"))
			if lit := waitHighlighted(c, "-3,400.00"); !strings.Contains(lit, "-3,400.00") {
				t.Errorf("from the top, ctrl+g ×9: highlighted %q, want -3,400.00 scrolled into view\n%s", lit, c.screen())
			}
			c.keys("Escape")
			c.waitFor("the view closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Numbers: ") })
			c.keys("C-c")
			c.keys("C-c")
			c.waitExit()
			requireNoContainers(t, c.pid)
		})
	}
}

// waitHighlighted waits until text is drawn in reverse video on the
// screen (above the view's own lines) and returns what is.
func waitHighlighted(c *pane, text string) string {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lit := highlightedRuns(c.screenEscapes())
		if strings.Contains(lit, text) || time.Now().After(deadline) {
			return lit
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var reSGR = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// highlightedRuns is the text in reverse video on a screen captured with
// its escapes, run by run ("|" between), leaving out the bottom three
// lines (the view, the status bar, the keys).
func highlightedRuns(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) > 3 {
		lines = lines[:len(lines)-3]
	}
	var runs []string
	for _, l := range lines {
		reverse := false
		var run strings.Builder
		flush := func() {
			if run.Len() > 0 {
				runs = append(runs, run.String())
				run.Reset()
			}
		}
		at := 0
		for _, m := range reSGR.FindAllStringSubmatchIndex(l, -1) {
			if reverse {
				run.WriteString(l[at:m[0]])
			}
			for _, p := range strings.Split(l[m[2]:m[3]], ";") {
				switch n, _ := strconv.Atoi(p); {
				case p == "" || n == 0 || n == 27:
					if reverse {
						flush()
					}
					reverse = false
				case n == 7:
					reverse = true
				}
			}
			at = m[1]
		}
		if reverse {
			run.WriteString(l[at:])
		}
		flush()
	}
	return strings.Join(runs, "|")
}
