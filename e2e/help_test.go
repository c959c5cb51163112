package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// On a terminal, help and mistakes are styled.
func TestHelpAndErrorsStyledOnTerminal(t *testing.T) {
	for _, args := range []string{"--help", "--bogus"} {
		r := newRun(t, "", args).withoutModel().without("NO_COLOR").onTerminal(100, 40)
		r.env = append(r.env, "TERM=xterm-256color", "COLORTERM=truecolor")
		r.exec(time.Minute)
		out := r.stdout.String()
		if !strings.Contains(out, "\x1b[") {
			t.Errorf("quarry %s on a terminal is not styled:\n%q", args, out)
		}
		if !strings.Contains(out, "quarry") {
			t.Errorf("quarry %s printed nothing useful: %q", args, out)
		}
	}
}

// A command's own words are wrapped at the terminal's width at word
// boundaries (the terminal would cut "h" / "ttp://…"); piped, each line
// stays whole for whatever reads it.
func TestCommandTextWrapsOnATerminal(t *testing.T) {
	const cols = 50
	r := newRun(t, "", "config", "check").withoutModel().onTerminal(cols, 40)
	r.env = append(r.env, "TERM=xterm-256color")
	r.exec(time.Minute)
	text := strings.ReplaceAll(ansi.Strip(r.stdout.String()), "\r", "")
	if !strings.Contains(text, "no model is set up") {
		t.Fatalf("no message:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if ansi.StringWidth(l) > cols {
			t.Errorf("a line wider than the terminal (%d): %q", ansi.StringWidth(l), l)
		}
	}
	if !strings.Contains(text, "http://127.0.0.1:11434") {
		t.Errorf("the address was cut:\n%s", text)
	}

	piped := newRun(t, "", "config", "check").withoutModel()
	piped.exec(time.Minute)
	first, _, _ := strings.Cut(piped.stderr.String(), "\n")
	if !strings.Contains(first, "no model is set up") || len(first) <= cols {
		t.Errorf("piped, the first line is not whole: %q", first)
	}
}
