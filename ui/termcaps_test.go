package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
)

// Bubble Tea gets the colour profile quarry detected (left alone it takes
// TERM=xterm for 16 colours); NO_COLOR keeps no colour at all.
func TestColorProfile(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want colorprofile.Profile
	}{
		{map[string]string{"TERM": "xterm"}, colorprofile.ANSI256},
		{map[string]string{"TERM": "mlterm"}, colorprofile.ANSI256},
		{map[string]string{"TERM": "xterm-256color", "COLORTERM": "truecolor"}, colorprofile.TrueColor},
		{map[string]string{"TERM": "xterm-kitty"}, colorprofile.TrueColor},
		{map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, colorprofile.Ascii},
		{map[string]string{"TERM": "dumb"}, colorprofile.NoTTY},
	} {
		if got := colorProfile(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %v, want %v", c.env, got, c.want)
		}
	}
}

// Without colours the status bar still reads as a bar: reverse video.
func TestNoColorStatusBarReversed(t *testing.T) {
	th := newTheme(true, true)
	st := status{model: "gpt-test", sandbox: "ready"}
	line := strings.Split(st.Render(40, time.Time{}, th, false), "\n")[0]
	if !regexp.MustCompile(`\x1b\[([0-9:]+;)*7(;[0-9:]+)*m`).MatchString(line) {
		t.Fatalf("status bar without reverse video: %q", line)
	}
	out := colorprofile.Ascii.Convert(th.status.GetForeground())
	if out != nil {
		t.Errorf("Ascii keeps a colour: %v", out)
	}
}
