package render

import (
	"strings"
	"testing"
)

func TestDetectProtocol(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Protocol
	}{
		{map[string]string{"TERM": "xterm-kitty"}, ProtocolKitty},
		{map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, ProtocolKitty},
		{map[string]string{"TERM_PROGRAM": "ghostty"}, ProtocolKitty},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, ProtocolITerm},
		{map[string]string{"LC_TERMINAL": "iTerm2"}, ProtocolITerm},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, ProtocolITerm},
		{map[string]string{"TERM": "foot"}, ProtocolSixel},
		{map[string]string{"TERM": "mlterm"}, ProtocolSixel},
		{map[string]string{"TERM": "xterm-sixel"}, ProtocolSixel},
		{map[string]string{"TERM": "xterm-256color"}, ProtocolBlocks},
		{map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, ProtocolBlocks},
		{map[string]string{"TERM": "tmux-256color", "TERM_PROGRAM": "iTerm.app"}, ProtocolBlocks},
		{map[string]string{"TERM": "dumb"}, ProtocolOff},
	}
	for _, c := range cases {
		if got := DetectProtocol(envOf(c.env)); got != c.want {
			t.Errorf("%v: got %s, want %s", c.env, got, c.want)
		}
	}
}

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
