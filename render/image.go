package render

import (
	"fmt"
	"strings"
)

// Protocol is how figures are drawn: the `images` setting.
type Protocol string

const (
	ProtocolAuto   Protocol = "auto"
	ProtocolKitty  Protocol = "kitty"
	ProtocolITerm  Protocol = "iterm"
	ProtocolSixel  Protocol = "sixel"
	ProtocolBlocks Protocol = "blocks"
	ProtocolOff    Protocol = "off"
)

// ParseProtocol reads the `images` setting; "" means auto.
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(strings.ToLower(strings.TrimSpace(s))); p {
	case "":
		return ProtocolAuto, nil
	case ProtocolAuto, ProtocolKitty, ProtocolITerm, ProtocolSixel, ProtocolBlocks, ProtocolOff:
		return p, nil
	}
	return "", fmt.Errorf("images setting %q: use auto, kitty, iterm, sixel, blocks or off", s)
}

// ColorDepth is how many colours the terminal shows.
type ColorDepth int

const (
	ColorNone ColorDepth = iota // NO_COLOR or a dumb terminal
	Color256
	ColorTrue
)

// DetectColorDepth reads NO_COLOR, COLORTERM, TERM and TERM_PROGRAM.
func DetectColorDepth(getenv func(string) string) ColorDepth {
	term := strings.ToLower(getenv("TERM"))
	ct := strings.ToLower(getenv("COLORTERM"))
	prog := getenv("TERM_PROGRAM")
	switch {
	case getenv("NO_COLOR") != "" || term == "dumb":
		return ColorNone
	case ct == "truecolor" || ct == "24bit",
		strings.Contains(term, "truecolor") || strings.Contains(term, "24bit") || strings.HasSuffix(term, "-direct"),
		term == "xterm-kitty" || term == "xterm-ghostty",
		prog == "iTerm.app" || prog == "WezTerm" || prog == "ghostty":
		return ColorTrue
	}
	return Color256
}

// kittyQuery asks the terminal whether it speaks kitty graphics; the
// answer names the image id kittyQueryID. Part of TerminalQueries.
const kittyQuery = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"

const kittyQueryID = 31

// ImageCells is the size in cells, at most cols × rows, that keeps a w × h
// pixel image's aspect ratio, assuming cells twice as tall as wide.
func ImageCells(w, h, cols, rows int) (int, int) {
	if w <= 0 || h <= 0 || cols <= 0 || rows <= 0 {
		return 0, 0
	}
	c := cols
	r := (c*h + w) / (2 * w) // round(c*h / 2w)
	if r > rows {
		r = rows
		c = (2*r*w + h/2) / h
	}
	return max(1, min(c, cols)), max(1, r)
}

// tmuxPassthrough wraps escapes so tmux hands them to the outer terminal,
// one wrapper per escape (kitty chunks each get their own, as kitty's
// documentation advises).
func TmuxPassthrough(s string) string {
	var b strings.Builder
	for s != "" {
		end := strings.Index(s, "\x1b\\")
		if end < 0 {
			end = len(s)
		} else {
			end += 2
		}
		b.WriteString("\x1bPtmux;" + strings.ReplaceAll(s[:end], "\x1b", "\x1b\x1b") + "\x1b\\")
		s = s[end:]
	}
	return b.String()
}
