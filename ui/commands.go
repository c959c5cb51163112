package ui

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/suggest"
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
	m.input.ta.InsertString(msg.text)
	return nil
}

// openWait is how long Ctrl+F waits for the opener to fail before it
// counts the figure as opened (xdg-open returns once the viewer started).
const openWait = 2 * time.Second

// openCmd shows a figure quarry wrote in the system viewer, and says what
// came of it. The path is quarry's own output, never a command proposed by
// the model.
func (m *Model) openCmd(path string) tea.Cmd {
	open, getenv := m.opts.Open, m.opts.Getenv
	m.status.hint = "Opening " + sanitizeLine(filepath.Base(path)) + "…"
	return func() tea.Msg {
		var c *exec.Cmd
		switch {
		case open != nil:
			c = open(path)
		case runtime.GOOS == "darwin":
			c = exec.Command("open", path)
		case getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "":
			return openedMsg{path: path, err: errors.New("there is no display to show it on (DISPLAY and WAYLAND_DISPLAY are unset)")}
		default:
			c = exec.Command("xdg-open", path)
		}
		by := filepath.Base(c.Path)
		var stderr bytes.Buffer
		if c.Stderr == nil {
			c.Stderr = &stderr
		}
		if err := c.Start(); err != nil {
			return openedMsg{path: path, by: by, err: fmt.Errorf("%s: %w (install xdg-utils)", by, err)}
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }() // reaps; the viewer lives on its own
		select {
		case err := <-done:
			if err != nil {
				why := strings.TrimSpace(stderr.String())
				if why != "" {
					why = ": " + oneLine(why, 120)
				}
				return openedMsg{path: path, by: by, err: fmt.Errorf("%s failed (%w)%s", by, err, why)}
			}
		case <-time.After(openWait):
		}
		return openedMsg{path: path, by: by}
	}
}

// helpRows are /help's commands, a table of two columns: helpText lays it
// out and the notice wraps each description under its column.
var helpRows = [][2]string{
	{"/attach PATH", "attach a CSV or Excel file (Tab completes; dropping a file works too)"},
	{"/files", "list the attached files"},
	{"/sources", "list the connected databases (sql(query, db=NAME))"},
	{"/undo", "take back the last question: its answer, its cells' variables and files go"},
	{"/reset", "fresh kernel with the same files; the model forgets the conversation"},
	{"/clear", "clear the screen (the conversation stays)"},
	{"/model NAME", "switch the model"},
	{"/export [PATH]", "write the session as PATH (.ipynb, .md or .html); alone, all three into its folder"},
	{"/tokens", "tokens and cost so far"},
	{"/help", "this help"},
	{"/quit", "leave (Ctrl+C twice at idle does too)"},
}

const helpKeys = `Keys:
  Enter send · Alt+Enter or Ctrl+J newline · Up/Down history (input empty)
  PgUp/PgDn, wheel, Alt+Up/Down scroll · Ctrl+Home/End top/bottom
  Ctrl+O expand/fold cell output · Ctrl+T latest table full screen · Ctrl+F open latest figure
  Ctrl+G step through the last answer's numbers and where each comes from
  Esc or Ctrl+C cancel a running answer`

// helpText is /help: the commands with two spaces at least between the
// columns, which is what keeps them two columns when a line wraps.
var helpText = func() string {
	w := 0
	for _, r := range helpRows {
		w = max(w, len(r[0]))
	}
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, r := range helpRows {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, r[0], r[1])
	}
	return b.String() + helpKeys
}()

// slashCommands are the names slash knows, for "did you mean".
var slashCommands = []string{"/attach", "/files", "/undo", "/reset", "/clear", "/model", "/export", "/tokens", "/help", "/quit", "/exit"}

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
			m.status.hint = "An answer is running: press Esc to cancel it first."
			return nil
		}
		b, ctx := m.opts.Backend, m.ctx
		return func() tea.Msg { return resetMsg{err: b.Reset(ctx)} }
	case "/undo":
		return m.undoCmd()
	case "/clear":
		m.transcript.clear()
		m.cur, m.think = nil, nil
		m.cells = map[int]*block{}
	case "/model":
		if arg == "" {
			m.notice(levelInfo, "Model: "+m.status.model+" (switch with /model NAME)")
			return nil
		}
		b := m.opts.Backend
		return func() tea.Msg { return modelSetMsg{name: arg, err: b.SetModel(arg)} }
	case "/export":
		return m.exportCmd(arg)
	case "/tokens":
		m.notice(levelInfo, tokensText(m.status.usage, m.status.model))
	case "/help":
		m.notice(levelInfo, helpText)
	case "/quit", "/exit", "/q":
		return m.quit()
	default:
		if p := suggest.Phrase(suggest.Nearest(name, slashCommands, 0), nil); p != "" {
			m.notice(levelError, fmt.Sprintf("Unknown command %s: %s (/help lists them)", name, p))
			return nil
		}
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
				b.WriteString(" (" + c.profile.Kind + ")") // the size is in the label already
			}
		}
	}
	return b.String()
}

// tokensText is /tokens: the counts, and the cost only when the model has a
// price (a model without one costs "unknown", not $0).
func tokensText(u agent.Usage, model string) string {
	cost := func(t agent.Tokens) string {
		if !u.Priced {
			return ""
		}
		return fmt.Sprintf(" ($%.4f)", t.CostUSD)
	}
	text := fmt.Sprintf("This answer: %s prompt + %s completion tokens%s. Session: %s + %s%s.",
		render.GroupInt(u.Turn.Prompt), render.GroupInt(u.Turn.Completion), cost(u.Turn),
		render.GroupInt(u.Total.Prompt), render.GroupInt(u.Total.Completion), cost(u.Total))
	if u.Total.Reasoning > 0 {
		text += fmt.Sprintf(" Completion includes %s reasoning tokens this session.", render.GroupInt(u.Total.Reasoning))
	}
	if !u.Priced && u.Total.Prompt+u.Total.Completion > 0 {
		text += fmt.Sprintf(" Cost unknown: quarry has no price for %s ([prices] in the config file adds one).", sanitizeLine(model))
	}
	return text
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
