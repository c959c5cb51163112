package ui

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// startCmd starts the sandbox in the background as the chat opens.
func (m *Model) startCmd() tea.Cmd {
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg { return startedMsg{err: b.Start(ctx)} }
}

// attachCmd checks (when asked) and uploads one file; the session waits for
// the sandbox if it is still starting.
func (m *Model) attachCmd(path string, check bool) tea.Cmd {
	m.chips.adding(path)
	if !m.started {
		// The session refuses uploads before Start; they wait here.
		m.pending = append(m.pending, pendingAttach{path, check})
		return nil
	}
	b, ctx, checkFile := m.opts.Backend, m.ctx, m.opts.CheckFile
	return func() tea.Msg {
		if check {
			if err := checkFile(path); err != nil {
				return attachedMsg{path: path, err: err}
			}
		}
		p, err := b.Attach(ctx, path)
		return attachedMsg{path: path, profile: p, err: err}
	}
}

type pendingAttach struct {
	path  string
	check bool
}

// flushPending uploads what was attached while the sandbox started.
func (m *Model) flushPending() tea.Cmd {
	var cmds []tea.Cmd
	p := m.pending
	m.pending = nil
	for _, a := range p {
		cmds = append(cmds, m.attachCmd(a.path, a.check))
	}
	return tea.Batch(cmds...)
}

func (m *Model) applyPaste(msg pasteMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.notice(levelError, msg.err.Error())
		return nil
	case len(msg.paths) > 0:
		var cmds []tea.Cmd
		for _, p := range msg.paths {
			m.attaching++
			cmds = append(cmds, m.attachCmd(p, false))
		}
		return tea.Batch(cmds...)
	}
	m.in.ta.InsertString(msg.text)
	return nil
}

// openCmd shows a figure quarry wrote in the system viewer. The path is
// quarry's own output, never a command proposed by the model.
func (m *Model) openCmd(path string) tea.Cmd {
	open := m.opts.Open
	return func() tea.Msg {
		var c *exec.Cmd
		switch {
		case open != nil:
			c = open(path)
		case runtime.GOOS == "darwin":
			c = exec.Command("open", path)
		default:
			c = exec.Command("xdg-open", path)
		}
		if err := c.Start(); err != nil {
			return openedMsg{err: fmt.Errorf("%s: %w (install xdg-utils, or open %s yourself)", c.Path, err, path)}
		}
		go func() { _ = c.Wait() }() // reap; the viewer lives on its own
		return openedMsg{}
	}
}

const helpText = `Commands:
  /attach PATH   attach a CSV or Excel file (Tab completes; dropping a file works too)
  /files         list the attached files
  /sources       list the connected databases (sql(query, db=NAME))
  /undo          take back the last question: its answer, its cells' variables and files go
  /reset         fresh kernel with the same files; the model forgets the conversation
  /clear         clear the screen (the conversation stays)
  /model NAME    switch the model
  /export [PATH] write the session as PATH (.ipynb, .md or .html); alone, all three into its folder
  /tokens        tokens and cost so far
  /help          this help
  /quit          leave (Ctrl+C twice at idle does too)
Keys:
  Enter send · Alt+Enter or Ctrl+J newline · Up/Down history (input empty)
  PgUp/PgDn, wheel, Alt+Up/Down scroll · Ctrl+Home/End top/bottom
  Ctrl+O expand/fold cell output · Ctrl+T latest table full screen · Ctrl+F open latest figure
  Esc or Ctrl+C cancel a running answer`

// slash runs a /command.
func (m *Model) slash(text string) tea.Cmd {
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/attach":
		if arg == "" {
			m.notice(levelError, "/attach needs a path, e.g. /attach sales.csv")
			return nil
		}
		path := arg
		if toks, ok := shellWords(arg); ok && len(toks) == 1 {
			path = toks[0]
		}
		if p, ok := pathToken(path); ok {
			path = p
		}
		m.attaching++
		return m.attachCmd(path, true)
	case "/files":
		m.notice(levelInfo, m.filesText())
	case "/sources":
		m.notice(levelInfo, m.sourcesText())
	case "/reset":
		if m.running {
			m.st.hint = "An answer is running: press Esc to cancel it first."
			return nil
		}
		b, ctx := m.opts.Backend, m.ctx
		return func() tea.Msg { return resetMsg{err: b.Reset(ctx)} }
	case "/undo":
		return m.undoCmd()
	case "/clear":
		m.tr.clear()
		m.cur, m.think = nil, nil
		m.cells = map[int]*block{}
	case "/model":
		if arg == "" {
			m.notice(levelInfo, "Model: "+m.st.model+" (switch with /model NAME)")
			return nil
		}
		b := m.opts.Backend
		return func() tea.Msg { return modelSetMsg{name: arg, err: b.SetModel(arg)} }
	case "/export":
		return m.exportCmd(arg)
	case "/tokens":
		u := m.st.usage
		text := fmt.Sprintf("This answer: %s prompt + %s completion tokens ($%.4f). Session: %s + %s ($%.4f).",
			render.GroupInt(u.Turn.Prompt), render.GroupInt(u.Turn.Completion), u.Turn.CostUSD,
			render.GroupInt(u.Total.Prompt), render.GroupInt(u.Total.Completion), u.Total.CostUSD)
		if u.Total.Reasoning > 0 {
			text += fmt.Sprintf(" Completion includes %s reasoning tokens this session.", render.GroupInt(u.Total.Reasoning))
		}
		m.notice(levelInfo, text)
	case "/help":
		m.notice(levelInfo, helpText)
	case "/quit", "/exit", "/q":
		return m.quit()
	default:
		m.notice(levelError, fmt.Sprintf("Unknown command %s: try /help.", name))
	}
	return nil
}

func (m *Model) filesText() string {
	if len(m.chips.items) == 0 {
		return "No files attached: drop one on the terminal or use /attach PATH."
	}
	var b strings.Builder
	b.WriteString("Attached files:")
	for _, c := range m.chips.items {
		b.WriteString("\n  " + c.label())
		switch {
		case c.profile != nil:
			b.WriteString(" — " + c.profile.Path)
			if c.profile.Kind != "" {
				b.WriteString(" (" + c.profile.Kind + ")")
			}
			b.WriteString(", " + kernel.FormatSize(c.profile.Size))
		}
	}
	return b.String()
}

func (m *Model) sourcesText() string {
	if len(m.opts.Sources) == 0 {
		return "No database is connected: start quarry with --db NAME=postgres://user@host/db, or attach a SQLite or DuckDB file."
	}
	var b strings.Builder
	b.WriteString("Connected databases (read-only; sql(query, db=NAME)):")
	for _, s := range m.opts.Sources {
		fmt.Fprintf(&b, "\n  %s — PostgreSQL %s, %s", sanitizeLine(s.Name), sanitizeLine(s.Version), sanitizeLine(s.Where))
	}
	return b.String()
}
