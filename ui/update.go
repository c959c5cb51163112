package ui

import (
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// Messages the model's own commands return.
type (
	startedMsg  struct{ err error }
	attachedMsg struct {
		path    string
		profile kernel.Profile
		err     error
	}
	resetMsg    struct{ err error }
	modelSetMsg struct {
		name string
		err  error
	}
	streamTickMsg struct{}
	cellTickMsg   struct{}
	openedMsg     struct {
		path, by string // the figure, and the program that opened it
		err      error
	}
)

// Tick rates: the streaming answer is re-rendered at most ~15 times a second;
// a running cell's elapsed time moves once a second. Neither ticks while idle.
const (
	streamEvery = time.Second / 15
	cellEvery   = time.Second
)

// Update applies one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.termReply(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case inboxMsg:
		var cmds []tea.Cmd
		for _, one := range msg {
			cmds = append(cmds, m.applyInbox(one))
		}
		return m, tea.Batch(append(cmds, m.inbox.wait())...)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.in.setWidth(m.width)
		return m, tea.Batch(m.cellSizeCmd(), m.refreshFigures())
	case tea.BackgroundColorMsg:
		m.bg = msg.Color
		if m.opts.Theme == "" || m.opts.Theme == "auto" {
			m.setDark(msg.IsDark())
		}
		return m, m.refreshFigures()
	case inlineMsg:
		m.inline[msg.img.key] = msg.img
		for _, f := range m.figs {
			if f.key == msg.img.key {
				f.inline = msg.img
			}
		}
		m.bumpFigureBlocks()
		return m, nil
	case startedMsg:
		m.started, m.st.progress = true, ""
		if msg.err != nil {
			m.notice(levelError, "The sandbox did not start: "+msg.err.Error())
			m.dropResumeChips()
			m.res = nil
			m.asked = true // nothing to ask without a sandbox
			return m, m.flushPending()
		}
		return m, tea.Batch(m.afterStart(), m.flushPending(), m.askOpening())
	case remapCheckedMsg:
		return m, m.remapChecked(msg)
	case restoredMsg:
		m.restored(msg)
		return m, nil
	case exportedMsg:
		m.exported(msg)
		return m, nil
	case attachedMsg:
		m.attaching, m.st.progress = m.attaching-1, ""
		m.chips.done(msg.path, msg.profile, msg.err)
		if msg.err != nil {
			m.notice(levelError, msg.err.Error())
		}
		return m, m.askOpening()
	case resetMsg:
		if msg.err != nil {
			m.notice(levelError, "Reset failed: "+msg.err.Error())
		} else {
			m.spans = nil
			m.notice(levelInfo, "Fresh kernel with the same files; the model forgot the conversation.")
		}
		return m, nil
	case undoneMsg:
		m.applyUndone(msg)
		return m, nil
	case modelSetMsg:
		if msg.err != nil {
			m.notice(levelError, "/model: "+msg.err.Error())
		} else {
			m.st.model = msg.name
			m.notice(levelInfo, "Model: "+msg.name)
		}
		return m, nil
	case figureMsg:
		m.lastKey++
		msg.fig.key = m.lastKey
		m.figs = append(m.figs, msg.fig)
		if b := m.cells[msg.cell]; b != nil {
			for i, f := range b.cell.figures {
				if f.file.Path == msg.fig.file.Path {
					b.cell.figures[i] = msg.fig
				}
			}
			b.ver++
		}
		prep := m.prepareFigure(msg.fig)
		if msg.fig.transmit != "" {
			m.kittyIDs = append(m.kittyIDs, msg.fig.kitty.ID)
			seq := msg.fig.transmit
			msg.fig.transmit = "" // sent once; placeholders show it from now on
			if m.inTmux() {
				seq = render.TmuxPassthrough(seq)
			}
			return m, tea.Batch(prep, tea.Raw(seq))
		}
		return m, prep
	case streamTickMsg:
		m.streamTick = false
		if m.cur != nil {
			m.cur.streamDirty = true
		}
		return m, nil
	case cellTickMsg:
		m.cellTick = false
		return m, m.scheduleCellTick()
	case tableSavedMsg:
		m.tableSaved(msg)
		return m, nil
	case openedMsg:
		m.st.hint = ""
		if msg.err != nil {
			m.notice(levelError, "Could not open the figure: "+sanitizeLine(msg.err.Error())+". It is at "+sanitizeLine(msg.path))
			return m, nil
		}
		m.st.hint = "Opened " + sanitizeLine(filepath.Base(msg.path)) + " with " + sanitizeLine(msg.by) + "."
		return m, nil
	case pasteMsg:
		return m, m.applyPaste(msg)
	case completionMsg:
		if m.in.value() == "/attach "+msg.prefix {
			m.in.setValue("/attach " + msg.value)
			if len(msg.options) > 0 {
				m.st.hint = truncate(strings.Join(msg.options, "  "), max(m.width, 20))
			}
		}
		return m, nil
	case editorReadyMsg, editedMsg:
		return m, m.confirmEditMsg(msg)
	case tea.PasteMsg:
		if m.tv != nil || m.confirm != nil {
			return m, nil
		}
		if paths := pastedPaths(msg.Content); paths != nil {
			return m, checkPaste(msg.Content, paths, m.opts.CheckFile)
		}
		return m, m.in.HandleMsg(msg)
	case tea.MouseWheelMsg:
		if m.tv != nil {
			return m, m.tableAct(m.tv.HandleMsg(msg, m.height))
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			m.tr.scroll(m.rc(), m.transcriptHeight(), -3)
		case tea.MouseWheelDown:
			m.tr.scroll(m.rc(), m.transcriptHeight(), 3)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if k != "ctrl+c" {
		m.quitArmed = false
		m.st.hint = ""
	}
	if m.tv != nil && k != "ctrl+c" {
		cmd := m.tableAct(m.tv.HandleMsg(msg, m.height))
		if m.tv.closed {
			m.tv = nil
		}
		return cmd
	}
	m.tv = nil // ctrl+c leaves the table and acts as usual
	if m.confirm != nil {
		return m.confirmKey(k)
	}
	h := m.transcriptHeight()
	switch k {
	case "ctrl+c":
		if m.running && !m.cancelling {
			m.cancelRun()
			return nil
		}
		// At idle, or when a cancelled turn does not end (a stuck engine),
		// the second Ctrl+C quits: the user is never trapped.
		if m.quitArmed {
			return m.quit()
		}
		m.quitArmed = true
		m.st.hint = "Press Ctrl+C again to quit."
		if m.running {
			m.st.hint = "Still cancelling: press Ctrl+C again to quit."
		}
		return nil
	case "esc":
		if m.running {
			m.cancelRun()
		}
		return nil
	case "pgup":
		m.tr.scroll(m.rc(), h, -max(h-2, 1))
		return nil
	case "pgdown":
		m.tr.scroll(m.rc(), h, max(h-2, 1))
		return nil
	case "alt+up", "ctrl+up":
		m.tr.scroll(m.rc(), h, -1)
		return nil
	case "alt+down", "ctrl+down":
		m.tr.scroll(m.rc(), h, 1)
		return nil
	case "ctrl+end":
		m.tr.toBottom()
		return nil
	case "ctrl+home":
		m.tr.toTop()
		return nil
	case "ctrl+o":
		m.expanded = !m.expanded
		return nil
	case "ctrl+t":
		if m.lastTable == nil {
			m.st.hint = "No table yet."
			return nil
		}
		m.tv = newTableView(m.lastTable, m.opts.Thousands)
		return nil
	case "ctrl+f":
		if m.lastFigure == "" {
			m.st.hint = "No figure yet."
			return nil
		}
		return m.openCmd(m.lastFigure)
	case "enter":
		return m.submit()
	case "tab":
		if v := m.in.value(); strings.HasPrefix(v, "/attach ") {
			return completePath(strings.TrimPrefix(v, "/attach "))
		}
		return nil
	case "up", "down":
		if m.in.browsing() && m.in.ta.LineCount() <= 1 {
			if k == "up" {
				m.in.historyUp()
			} else {
				m.in.historyDown()
			}
			return nil
		}
	}
	return m.in.HandleMsg(msg)
}

// submit sends the input: a slash command or a question.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.in.value())
	if m.askingInput() && !isChatCommand(text) {
		m.in.reset()
		m.tr.toBottom() // what comes of the answer shows
		return m.answerInput(text)
	}
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") {
		m.in.remember(text)
		m.in.reset()
		m.tr.toBottom() // its output shows, as a question's does
		return m.slash(text)
	}
	if m.running {
		m.st.hint = "An answer is running: wait for it, or press Esc to cancel it."
		return nil
	}
	if m.res != nil {
		m.st.hint = "The session is being resumed: ask once the kernel is rebuilt."
		return nil
	}
	if m.undoing {
		m.st.hint = "The last question is being taken back: send this in a moment."
		return nil
	}
	m.in.remember(text)
	m.in.reset()
	m.tr.toBottom()
	q := m.tr.add(&block{kind: kindUser, text: text})
	m.spans = append(m.spans, turnSpan{first: q, last: q})
	return m.ask(text)
}

func (m *Model) notice(level noticeLevel, text string) {
	m.tr.add(&block{kind: kindNotice, level: level, text: text})
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	if m.cancelTurn != nil {
		m.cancelTurn()
	}
	return tea.Quit
}

func (m *Model) scheduleStreamTick() tea.Cmd {
	if m.streamTick {
		return nil
	}
	m.streamTick = true
	return tea.Tick(streamEvery, func(time.Time) tea.Msg { return streamTickMsg{} })
}

func (m *Model) scheduleCellTick() tea.Cmd {
	if m.cellTick || m.st.running == 0 {
		return nil
	}
	m.cellTick = true
	return tea.Tick(cellEvery, func(time.Time) tea.Msg { return cellTickMsg{} })
}
