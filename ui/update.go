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
		// announce: attached in the chat (/attach, a drop), so the
		// transcript says so; launch files show as chips only.
		announce bool
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
		m.input.setWidth(m.width)
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
		m.started, m.status.progress = true, ""
		if msg.err != nil {
			m.notice(levelError, "The sandbox did not start: "+msg.err.Error())
			m.dropResumeChips()
			m.resuming = nil
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
	case reportPlannedMsg:
		return m, m.reportPlanned(msg)
	case reportedMsg:
		m.reported(msg)
		return m, nil
	case attachListMsg:
		return m, m.attachList(msg)
	case attachedMsg:
		m.attaching, m.status.progress = m.attaching-1, ""
		m.chips.done(msg.path)
		switch {
		case msg.err != nil:
			m.notice(levelError, msg.err.Error())
		case msg.announce:
			m.notice(levelInfo, "Attached "+chip{name: msg.profile.Name, profile: &msg.profile}.label()+": ask about it.")
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
			m.status.model = msg.name
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
		m.status.hint = ""
		if msg.err != nil {
			m.notice(levelError, "Could not open the figure: "+sanitizeLine(msg.err.Error())+". It is at "+sanitizeLine(msg.path))
			return m, nil
		}
		m.status.hint = "Opened " + sanitizeLine(filepath.Base(msg.path)) + " with " + sanitizeLine(msg.by) + "."
		return m, nil
	case pasteMsg:
		return m, m.applyPaste(msg)
	case completionMsg:
		if m.input.value() == "/attach "+msg.prefix {
			m.input.setValue("/attach " + msg.value)
			if len(msg.options) > 0 {
				m.status.hint = truncate(strings.Join(msg.options, "  "), max(m.width, 20))
			}
		}
		return m, nil
	case editorReadyMsg, editedMsg:
		return m, m.confirmEditMsg(msg)
	case tea.PasteMsg:
		if m.tableView != nil || m.confirm != nil {
			return m, nil
		}
		if paths := pastedPaths(msg.Content); paths != nil {
			return m, checkPaste(msg.Content, paths, m.opts.CheckFile)
		}
		return m, m.input.HandleMsg(msg)
	case tea.MouseWheelMsg:
		if m.tableView != nil {
			return m, m.tableAct(m.tableView.HandleMsg(msg, m.height))
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			m.transcript.scroll(m.rc(), m.transcriptHeight(), -3)
		case tea.MouseWheelDown:
			m.transcript.scroll(m.rc(), m.transcriptHeight(), 3)
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
		m.status.hint = ""
	}
	if m.tableView != nil && k != "ctrl+c" {
		cmd := m.tableAct(m.tableView.HandleMsg(msg, m.height))
		if m.tableView.closed {
			m.tableView = nil
		}
		return cmd
	}
	m.tableView = nil // ctrl+c leaves the table and acts as usual
	if m.confirm != nil {
		return m.confirmKey(k)
	}
	if m.numbersView != nil && k != "ctrl+c" && m.numbersKey(k) {
		return nil
	}
	m.closeNumbers()
	h := m.transcriptHeight()
	switch k {
	case "ctrl+c":
		// A turn whose answer or error is on screen has nothing left to
		// cancel: Ctrl+C counts towards quitting, as at idle.
		if m.running && !m.cancelling && !m.turnOver {
			m.cancelRun()
			return nil
		}
		// At idle, or when a cancelled turn does not end (a stuck engine),
		// the second Ctrl+C quits: the user is never trapped.
		if m.quitArmed {
			return m.quit()
		}
		m.quitArmed = true
		m.status.hint = "Press Ctrl+C again to quit."
		if m.running && !m.turnOver {
			m.status.hint = "Still cancelling: press Ctrl+C again to quit."
		}
		return nil
	case "esc":
		if m.running {
			m.cancelRun()
		}
		return nil
	case "pgup":
		m.transcript.scroll(m.rc(), h, -max(h-2, 1))
		return nil
	case "pgdown":
		m.transcript.scroll(m.rc(), h, max(h-2, 1))
		return nil
	case "alt+up", "ctrl+up":
		m.transcript.scroll(m.rc(), h, -1)
		return nil
	case "alt+down", "ctrl+down":
		m.transcript.scroll(m.rc(), h, 1)
		return nil
	case "ctrl+end":
		m.transcript.toBottom()
		return nil
	case "ctrl+home":
		m.transcript.toTop()
		return nil
	case "ctrl+o":
		if !m.expanded && !m.anythingFolded() {
			m.status.hint = "Nothing is folded: every cell's code and output are shown whole."
			return nil
		}
		m.expanded = !m.expanded
		return nil
	case "ctrl+t":
		if m.lastTable == nil {
			m.status.hint = "No table yet."
			return nil
		}
		m.tableView = newTableView(m.lastTable, m.opts.Thousands)
		return nil
	case "ctrl+g":
		m.openNumbers()
		return nil
	case "ctrl+f":
		if m.lastFigure == "" {
			m.status.hint = "No figure yet."
			return nil
		}
		return m.openCmd(m.lastFigure)
	case "enter":
		return m.submit()
	case "tab":
		if v := m.input.value(); strings.HasPrefix(v, "/attach ") {
			return completePath(strings.TrimPrefix(v, "/attach "))
		}
		return nil
	case "up", "down":
		if m.input.browsing() && m.input.ta.LineCount() <= 1 {
			if k == "up" {
				m.input.historyUp()
			} else {
				m.input.historyDown()
			}
			return nil
		}
	}
	return m.input.HandleMsg(msg)
}

// submit sends the input: a slash command or a question.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.value())
	if m.askingInput() && !whileAsking(text) {
		m.input.reset()
		m.transcript.toBottom() // what comes of the answer shows
		return m.answerInput(text)
	}
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") {
		m.input.remember(text)
		m.input.reset()
		m.transcript.toBottom() // its output shows, as a question's does
		return m.slash(text)
	}
	if m.running {
		m.status.hint = "An answer is running: wait for it, or press Esc to cancel it."
		return nil
	}
	if m.resuming != nil {
		m.status.hint = "The session is being resumed: ask once the kernel is rebuilt."
		return nil
	}
	if m.undoing {
		m.status.hint = "The last question is being taken back: send this in a moment."
		return nil
	}
	m.input.remember(text)
	m.input.reset()
	m.transcript.toBottom()
	q := m.transcript.add(&block{kind: kindUser, text: text})
	m.spans = append(m.spans, turnSpan{first: q, last: q})
	return m.ask(text)
}

func (m *Model) notice(level noticeLevel, text string) {
	m.transcript.add(&block{kind: kindNotice, level: level, text: text})
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
	if m.cellTick || m.status.running == 0 {
		return nil
	}
	m.cellTick = true
	return tea.Tick(cellEvery, func(time.Time) tea.Msg { return cellTickMsg{} })
}
