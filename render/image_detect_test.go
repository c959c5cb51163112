package render

import (
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseProtocol(t *testing.T) {
	for _, s := range []string{"auto", "kitty", "ITERM", " sixel ", "blocks", "off", ""} {
		if _, err := ParseProtocol(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseProtocol("png"); err == nil || !strings.Contains(err.Error(), "use auto, kitty") {
		t.Errorf("bad setting: %v", err)
	}
}

func TestDetectColorDepth(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want ColorDepth
	}{
		{map[string]string{"NO_COLOR": "1", "COLORTERM": "truecolor"}, ColorNone},
		{map[string]string{"TERM": "dumb"}, ColorNone},
		{map[string]string{"COLORTERM": "truecolor", "TERM": "xterm"}, ColorTrue},
		{map[string]string{"COLORTERM": "24bit"}, ColorTrue},
		{map[string]string{"TERM": "xterm-direct"}, ColorTrue},
		{map[string]string{"TERM": "xterm-kitty"}, ColorTrue},
		{map[string]string{"TERM": "xterm-256color"}, Color256},
		{map[string]string{"TERM": "screen"}, Color256},
	}
	for _, c := range cases {
		if got := DetectColorDepth(envOf(c.env)); got != c.want {
			t.Errorf("%v: got %d, want %d", c.env, got, c.want)
		}
	}
}
