package render

import (
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
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

// DetectProtocol guesses the image protocol from the environment. It never
// returns ProtocolAuto. Inside tmux or screen it answers blocks, because
// graphics need allow-passthrough, which the environment does not reveal;
// the TUI may still upgrade with TerminalCaps from a query.
func DetectProtocol(getenv func(string) string) Protocol {
	term := strings.ToLower(getenv("TERM"))
	prog := getenv("TERM_PROGRAM")
	switch {
	case term == "dumb":
		return ProtocolOff
	case getenv("TMUX") != "" || strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "screen"):
		return ProtocolBlocks
	case term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return ProtocolKitty
	case prog == "ghostty" || term == "xterm-ghostty":
		return ProtocolKitty
	case prog == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2" || prog == "WezTerm":
		return ProtocolITerm
	case strings.Contains(term, "sixel") || strings.HasPrefix(term, "foot") ||
		strings.HasPrefix(term, "mlterm") || strings.HasPrefix(term, "contour"):
		return ProtocolSixel
	}
	return ProtocolBlocks
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

// KittyQuery asks the terminal whether it speaks kitty graphics (image id
// 31); the chat sends it when the environment does not tell.
const KittyQuery = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"

// ImageOptions say how and how large to draw a figure.
type ImageOptions struct {
	Protocol Protocol   // resolved: not auto
	Cols     int        // the most columns to use; 0 means 60
	Rows     int        // the most rows to use; 0 means 20
	Depth    ColorDepth // for blocks
	Name     string     // file name, for iTerm2 (sanitized here)
	// Tmux wraps graphics in tmux passthrough (needs allow-passthrough on).
	Tmux bool
}

// Not wired into the chat yet: the terminal-rendering work draws figures with it.
//
// Image draws a PNG with the chosen protocol. The PNG is checked (signature,
// dimensions, caps) before anything; off and auto draw nothing. The result
// is quarry's own escapes: do not sanitize it. It ends without a newline and
// occupies the rows ImageCells reports.
func Image(data []byte, opt ImageOptions) (string, error) {
	w, h, err := kernel.CheckPNG(data)
	if err != nil {
		return "", err
	}
	cols, rows := opt.Cols, opt.Rows
	if cols <= 0 {
		cols = 60
	}
	if rows <= 0 {
		rows = 20
	}
	c, r := ImageCells(w, h, cols, rows)
	var out string
	switch opt.Protocol {
	case ProtocolKitty:
		out = Kitty(data, c, r)
	case ProtocolITerm:
		out = ITerm(data, opt.Name, c, r)
	case ProtocolSixel, ProtocolBlocks:
		img, err := DecodePNG(data)
		if err != nil {
			return "", err
		}
		if opt.Protocol == ProtocolBlocks {
			return HalfBlocks(img, cols, rows, opt.Depth), nil
		}
		out = Sixel(img, c, r)
	default:
		return "", nil
	}
	if opt.Tmux {
		out = tmuxPassthrough(out)
	}
	return out, nil
}

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
// documentation advises). Used by Image (the terminal-rendering work).
func tmuxPassthrough(s string) string {
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
