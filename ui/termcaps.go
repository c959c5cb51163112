package ui

import (
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/quarry-cli/quarry/render"
)

// The chat asks the terminal what it is (render.TerminalQueries) as it
// opens, and chooses how to draw figures from the replies, unless the
// `images` setting names a protocol. Replies arrive as ordinary messages;
// the one to DA1 comes last, and settles the choice.

// termReply applies a reply to the terminal queries; ok is false for a
// message that is not one.
func (m *Model) termReply(msg tea.Msg) (tea.Cmd, bool) {
	t := &m.term
	var ev uv.Event = msg
	switch msg := msg.(type) {
	case tea.TerminalVersionMsg: // Bubble Tea's own types for these two
		ev = uv.TerminalVersionEvent{Name: msg.Name}
	case tea.CapabilityMsg:
		ev = uv.CapabilityEvent{Content: msg.Content}
	case uv.PixelSizeEvent:
		if !m.cellAsked && m.width > 0 && m.height > 0 && msg.Width >= m.width && msg.Height >= m.height {
			t.CellW, t.CellH = msg.Width/m.width, msg.Height/m.height
			return m.refreshFigures(), true
		}
		return nil, true
	case cellSizeMsg:
		// The kernel's idea of the window in pixels, when the terminal fills
		// it in (xterm does, and by default answers no CSI 16 t).
		if !m.cellAsked && msg.w > 0 && msg.h > 0 {
			t.CellW, t.CellH = msg.w, msg.h
			return m.refreshFigures(), true
		}
		return nil, true
	}
	if !t.Reply(ev) {
		return nil, false
	}
	switch ev.(type) {
	case uv.CellSizeEvent:
		m.cellAsked = true
		return m.refreshFigures(), true
	case uv.PrimaryDeviceAttributesEvent:
		m.chooseImages()
		return m.refreshFigures(), true
	}
	return nil, true
}

// chooseImages sets the figure protocol: the setting, or what the terminal
// said so far.
func (m *Model) chooseImages() {
	p, _ := render.ParseProtocol(m.opts.Images)
	if p == "" || p == render.ProtocolAuto {
		p, _ = m.term.Images()
	}
	m.images = p
	m.kittyOn = p == render.ProtocolKitty
}

// overlaid tells whether figures are painted by the overlay: Sixel or
// iTerm2, with the cell size in pixels known (Sixel draws pixels; a wrong
// guess would spill over the text around the figure).
func (m *Model) overlaid() bool {
	switch m.images {
	case render.ProtocolSixel:
		return m.term.CellW > 0 && m.term.CellH > 0
	case render.ProtocolITerm:
		return true
	}
	return false
}

// cellSizeMsg is the cell size in pixels from the terminal's window size
// (TIOCGWINSZ), read by a command.
type cellSizeMsg struct{ w, h int }

func (m *Model) cellSizeCmd() tea.Cmd {
	if m.winsize == nil {
		return nil
	}
	f := m.winsize
	return func() tea.Msg {
		w, h := f()
		return cellSizeMsg{w, h}
	}
}
