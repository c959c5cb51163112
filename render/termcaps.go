package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
)

// TerminalQueries asks the terminal what it is and what it draws: its name
// and version (XTVERSION, and kitty's own XTGETTCAP kitty-query-version),
// kitty graphics (kittyQuery), Sixel colour registers (XTSMGRAPHICS), the
// cell and window size in pixels (CSI 16 t, CSI 14 t), and last the primary
// device attributes (DA1). Every terminal answers DA1, and in order, so once
// its reply is in, a query without a reply will get none.
const TerminalQueries = "\x1b[>0q" + "\x1bP+q6b697474792d71756572792d76657273696f6e\x1b\\" + kittyQuery +
	"\x1b[?1;1;0S" + "\x1b[16t" + "\x1b[14t" + "\x1b[c"

// Terminal is what quarry knows of the terminal: the environment and the
// replies to TerminalQueries so far. The zero value plus Getenv is the
// environment alone.
type Terminal struct {
	Getenv  func(string) string
	Version string // the XTVERSION reply, e.g. "kitty(0.26.5)", "XTerm(379)"
	// KittyVersion is kitty's answer to XTGETTCAP kitty-query-version.
	KittyVersion  string
	KittyGraphics bool  // answered the kitty graphics query with OK
	SixelColors   int   // colour registers XTSMGRAPHICS reported; 0 for no answer
	DA1           []int // primary device attributes
	Answered      bool  // the DA1 reply arrived: no further replies will come
	// CellW and CellH are a cell's size in pixels (CSI 16 t, or the window
	// in pixels over its cells); 0 when unknown.
	CellW, CellH int
}

// Reply records one decoded reply to TerminalQueries, as the chat and
// `quarry doctor` both receive them; false for an event that is not one.
// The reply to DA1, the last query, sets Answered.
func (t *Terminal) Reply(ev uv.Event) bool {
	switch ev := ev.(type) {
	case uv.TerminalVersionEvent:
		t.Version = ev.Name
	case uv.CapabilityEvent:
		v, ok := strings.CutPrefix(ev.Content, "kitty-query-version=")
		if !ok {
			return false
		}
		t.KittyVersion = v
	case uv.KittyGraphicsEvent:
		if ev.Options.ID != kittyQueryID {
			return false
		}
		t.KittyGraphics = string(ev.Payload) == "OK"
	case uv.UnknownCsiEvent:
		n := parseSixelColors(string(ev))
		if n == 0 {
			return false
		}
		t.SixelColors = n
	case uv.CellSizeEvent:
		if ev.Width <= 0 || ev.Height <= 0 {
			return false
		}
		t.CellW, t.CellH = ev.Width, ev.Height
	case uv.MultiEvent:
		any := false
		for _, e := range ev {
			any = t.Reply(e) || any
		}
		return any
	case uv.PrimaryDeviceAttributesEvent:
		t.DA1, t.Answered = ev, true
	default:
		return false
	}
	return true
}

// kittyPlaceholders is the first kitty release with Unicode placeholders.
var kittyPlaceholders = [3]int{0, 28, 0}

// Images chooses the image protocol by what the terminal says it can do, and
// says why in words for `quarry doctor`. It never answers auto. Until the
// replies are in (Answered), it answers from the environment alone.
func (t Terminal) Images() (Protocol, string) {
	getenv := t.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	term := strings.ToLower(getenv("TERM"))
	prog := getenv("TERM_PROGRAM")
	name, version := t.name()
	switch {
	case term == "dumb":
		return ProtocolOff, "TERM=dumb"
	case getenv("TMUX") != "" || strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "screen"):
		return ProtocolBlocks, "inside tmux or screen, whose pass-through of graphics quarry cannot see"
	case name == "kitty" || (name == "" && (term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "")):
		switch {
		case version == "" && !t.Answered:
			return ProtocolBlocks, "kitty, version not known yet"
		case version == "":
			return ProtocolBlocks, "kitty that does not report its version; Unicode placeholders need 0.28 or later"
		case !versionAtLeast(version, kittyPlaceholders):
			return ProtocolBlocks, fmt.Sprintf("kitty %s draws no Unicode placeholders (0.28 or later does) and no Sixel", version)
		}
		return ProtocolKitty, fmt.Sprintf("kitty %s: graphics with Unicode placeholders", version)
	case name == "ghostty" || (name == "" && (prog == "ghostty" || term == "xterm-ghostty")):
		return ProtocolKitty, "Ghostty: kitty graphics with Unicode placeholders"
	case name == "iterm2" || (name == "" && (prog == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2")):
		return ProtocolITerm, "iTerm2: its inline image protocol"
	case name == "wezterm" || (name == "" && prog == "WezTerm"):
		return ProtocolITerm, "WezTerm: the iTerm2 inline image protocol"
	case slices.Contains(t.DA1, 4):
		return ProtocolSixel, "the terminal reports Sixel graphics (device attribute 4)"
	case t.SixelColors > 0:
		return ProtocolSixel, fmt.Sprintf("the terminal reports %d Sixel colour registers (XTSMGRAPHICS)", t.SixelColors)
	case !t.Answered && (strings.Contains(term, "sixel") || strings.HasPrefix(term, "foot") ||
		strings.HasPrefix(term, "mlterm") || strings.HasPrefix(term, "contour")):
		return ProtocolSixel, "TERM=" + term + " (not confirmed by the terminal yet)"
	case t.Answered:
		return ProtocolBlocks, "the terminal reports no image protocol quarry draws"
	}
	return ProtocolBlocks, "no image protocol known from the environment"
}

// Describe names the terminal as it introduced itself, for `quarry doctor`.
func (t Terminal) Describe() string {
	if v := strings.TrimSpace(SanitizeLine(t.Version)); v != "" {
		return v
	}
	if t.KittyVersion != "" {
		return "kitty(" + SanitizeLine(t.KittyVersion) + ")"
	}
	return ""
}

// name is the terminal's lower-case name and version from its replies.
func (t Terminal) name() (string, string) {
	v := strings.TrimSpace(t.Version)
	if t.KittyVersion != "" && v == "" {
		return "kitty", t.KittyVersion
	}
	// "kitty(0.26.5)", "XTerm(379)", "foot(1.16.2)", "WezTerm 20240203-...",
	// "ghostty 1.1.3", "iTerm2 3.5.0"
	name, ver, ok := strings.Cut(v, "(")
	if ok {
		ver = strings.TrimSuffix(ver, ")")
	} else {
		name, ver, _ = strings.Cut(v, " ")
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "kitty" && t.KittyVersion != "" {
		ver = t.KittyVersion
	}
	return name, strings.TrimSpace(ver)
}

// versionAtLeast compares a dotted version ("0.26.5") with min.
func versionAtLeast(v string, min [3]int) bool {
	parts := strings.SplitN(v, ".", 3)
	for i := range 3 {
		n := 0
		if i < len(parts) {
			digits := parts[i]
			if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
				digits = digits[:j]
			}
			n, _ = strconv.Atoi(digits)
		}
		if n != min[i] {
			return n > min[i]
		}
	}
	return true
}

// parseSixelColors reads an XTSMGRAPHICS reply for the colour registers,
// "CSI ? 1 ; 0 ; 256 S", as the chat receives it; 0 when it is not one or
// reports an error.
func parseSixelColors(seq string) int {
	s, ok := strings.CutPrefix(seq, "\x1b[?1;")
	if !ok {
		return 0
	}
	s, ok = strings.CutSuffix(s, "S")
	if !ok {
		return 0
	}
	status, n, ok := strings.Cut(s, ";")
	if !ok || status != "0" {
		return 0
	}
	v, err := strconv.Atoi(n)
	if err != nil || v < 0 {
		return 0
	}
	return v
}
