package render

import (
	"strings"
	"testing"
)

func TestTerminalImages(t *testing.T) {
	cases := []struct {
		name string
		term Terminal
		env  map[string]string
		want Protocol
		why  string
	}{
		{"kitty 0.26 by name", Terminal{Version: "kitty(0.26.5)", DA1: []int{62}, Answered: true},
			map[string]string{"TERM": "xterm-kitty"}, ProtocolBlocks, "0.28 or later"},
		{"kitty 0.26 by XTGETTCAP", Terminal{KittyVersion: "0.26.5", Answered: true},
			map[string]string{"TERM": "xterm-kitty"}, ProtocolBlocks, "kitty 0.26.5"},
		{"kitty 0.28", Terminal{Version: "kitty(0.28.0)", Answered: true}, nil, ProtocolKitty, "placeholders"},
		{"kitty 0.41.1", Terminal{Version: "kitty(0.41.1)", KittyVersion: "0.41.1", Answered: true},
			map[string]string{"TERM": "xterm-kitty"}, ProtocolKitty, "kitty 0.41.1"},
		{"kitty 1.0", Terminal{Version: "kitty(1.0)", Answered: true}, nil, ProtocolKitty, ""},
		{"kitty silent", Terminal{Answered: true}, map[string]string{"TERM": "xterm-kitty"}, ProtocolBlocks, "does not report"},
		{"kitty before replies", Terminal{}, map[string]string{"KITTY_WINDOW_ID": "1"}, ProtocolBlocks, "not known yet"},
		{"ghostty", Terminal{Version: "ghostty 1.1.3", Answered: true}, nil, ProtocolKitty, "Ghostty"},
		{"ghostty env", Terminal{}, map[string]string{"TERM_PROGRAM": "ghostty"}, ProtocolKitty, ""},
		{"iTerm2", Terminal{}, map[string]string{"TERM_PROGRAM": "iTerm.app"}, ProtocolITerm, "iTerm2"},
		{"iTerm2 over ssh", Terminal{Version: "iTerm2 3.5.0", Answered: true}, nil, ProtocolITerm, ""},
		{"WezTerm", Terminal{Version: "WezTerm 20240203-110809-5046fc22", DA1: []int{65, 4}, Answered: true}, nil, ProtocolITerm, "WezTerm"},
		{"xterm vt340", Terminal{Version: "XTerm(379)", DA1: []int{63, 1, 2, 4, 6, 9}, SixelColors: 1024, Answered: true},
			map[string]string{"TERM": "xterm"}, ProtocolSixel, "attribute 4"},
		{"xterm vt420", Terminal{Version: "XTerm(379)", DA1: []int{64, 1, 2, 6, 9}, Answered: true},
			map[string]string{"TERM": "xterm"}, ProtocolBlocks, "no image protocol"},
		{"XTSMGRAPHICS only", Terminal{DA1: []int{62}, SixelColors: 256, Answered: true}, nil, ProtocolSixel, "256 Sixel"},
		{"mlterm before replies", Terminal{}, map[string]string{"TERM": "mlterm"}, ProtocolSixel, "not confirmed"},
		{"mlterm", Terminal{DA1: []int{63, 1, 2, 3, 4}, Answered: true}, map[string]string{"TERM": "mlterm"}, ProtocolSixel, ""},
		{"tmux", Terminal{Version: "tmux 3.3a", DA1: []int{62, 4}, Answered: true},
			map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/x,1,0"}, ProtocolBlocks, "tmux"},
		{"dumb", Terminal{}, map[string]string{"TERM": "dumb"}, ProtocolOff, "dumb"},
		{"plain", Terminal{}, map[string]string{"TERM": "xterm-256color"}, ProtocolBlocks, "environment"},
	}
	for _, c := range cases {
		c.term.Getenv = envOf(c.env)
		got, why := c.term.Images()
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%s: got %s (%s), want %s (%q)", c.name, got, why, c.want, c.why)
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"0.26.5": false, "0.27.99": false, "0.28": true, "0.28.0": true,
		"0.41.1": true, "1.0.0": true, "0.28.1-dev": true, "": false, "x": false} {
		if got := versionAtLeast(v, kittyPlaceholders); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

func TestParseSixelColors(t *testing.T) {
	for seq, want := range map[string]int{"\x1b[?1;0;1024S": 1024, "\x1b[?1;0;256S": 256,
		"\x1b[?1;3;0S": 0, "\x1b[?2;0;1000;1000S": 0, "\x1b[?1;0;xS": 0, "junk": 0} {
		if got := parseSixelColors(seq); got != want {
			t.Errorf("%q: %d, want %d", seq, got, want)
		}
	}
}
