package ui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// --confirm needs a hook in the agent, which has none yet. Proposal for
// agent.Config (Inbox.Confirm already has this shape):
//
//	// Confirm, when set, is called before each cell runs. It returns the
//	// code to run (possibly edited) and whether to run it; when run is
//	// false the model gets a tool result saying the user skipped the cell.
//	// An error (ctx cancelled) ends the turn like a cancellation.
//	Confirm func(ctx context.Context, cell int, code string) (string, bool, error)
//
// main then sets it through session.Options.Agent:
// func(c *agent.Config) { c.Confirm = inbox.Confirm }.

// confirmPrompt shows a cell the model wants to run and waits for y, n or e.
type confirmPrompt struct {
	req     confirmRequest
	editing bool
	done    bool
	// The highlighted code, per width and background: View and the layout
	// ask for it on every frame.
	cache     renderCache
	cacheEdit bool
}

func newConfirmPrompt(req confirmRequest) *confirmPrompt { return &confirmPrompt{req: req} }

// answer replies once; the agent goroutine is waiting on it.
func (c *confirmPrompt) answer(r confirmReply) {
	if c.done {
		return
	}
	c.done = true
	c.req.reply <- r
}

// confirmShown is how many code lines the prompt shows.
const confirmShown = 14

func (c *confirmPrompt) Render(rc renderCtx) string {
	if l, ok := c.cache.get(rc, 0); ok && c.cacheEdit == c.editing {
		return l[0]
	}
	s := c.render(rc)
	c.cache.put(rc, 0, []string{s})
	c.cacheEdit = c.editing
	return s
}

func (c *confirmPrompt) render(rc renderCtx) string {
	th := rc.th
	if q := c.req.install; q != "" {
		lines := wrapText(sanitizeLine(q), max(rc.width-2, 8), "")
		out := make([]string, 0, len(lines)+1)
		for _, l := range lines {
			out = append(out, th.accent.Render(l))
		}
		return strings.Join(append(out, th.help.Render(truncate("y add it from Debian's signed archive · n or enter no (the model is told) · ctrl+c cancel the answer", rc.width))), "\n")
	}
	w := max(rc.width-2, 8)
	code := rc.codeBlock(c.req.code, w)
	more := 0
	if len(code) > confirmShown {
		more = len(code) - confirmShown
		code = code[:confirmShown]
	}
	out := []string{th.accent.Render(fmt.Sprintf("Run cell %d?", c.req.cell))}
	for _, l := range code {
		out = append(out, th.code.Render("│ ")+l)
	}
	if more > 0 {
		out = append(out, th.dim.Render(fmt.Sprintf("│ … %d more lines (e shows them all)", more)))
	}
	help := "y run · n skip (the model is told) · e edit in $EDITOR · esc cancel the answer"
	if c.editing {
		help = "editing…"
	}
	out = append(out, th.help.Render(truncate(help, rc.width)))
	return strings.Join(out, "\n")
}

func (m *Model) confirmKey(k string) tea.Cmd {
	c := m.confirm
	if c.editing {
		return nil
	}
	if c.req.install != "" { // [y/N]: anything but y is no
		if k == "ctrl+c" {
			m.cancelRun()
			return nil
		}
		c.answer(confirmReply{run: k == "y" || k == "Y"})
		m.confirm = nil
		return nil
	}
	switch k {
	case "y", "Y", "enter":
		c.answer(confirmReply{code: c.req.code, run: true})
		m.confirm = nil
	case "n", "N":
		c.answer(confirmReply{code: c.req.code, run: false})
		m.confirm = nil
	case "e", "E":
		c.editing = true
		return writeEditFile(c.req.code)
	case "esc", "ctrl+c":
		m.cancelRun()
	}
	return nil
}

type editorReadyMsg struct {
	path string
	err  error
}

type editedMsg struct {
	code string
	err  error
}

func writeEditFile(code string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "quarry-cell-*.py")
		if err != nil {
			return editorReadyMsg{err: err}
		}
		_, err = f.WriteString(code)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return editorReadyMsg{path: f.Name(), err: err}
	}
}

// readEdited reads the edited cell back once the editor has exited.
func readEdited(path string, editorErr error) tea.Msg {
	defer os.Remove(path)
	if editorErr != nil {
		return editedMsg{err: fmt.Errorf("editor: %w (set $EDITOR)", editorErr)}
	}
	b, err := os.ReadFile(path)
	return editedMsg{code: string(b), err: err}
}

// editorCommand is $VISUAL or $EDITOR (with its arguments, shell-quoted),
// else vi.
func editorCommand(getenv func(string) string, path string) *exec.Cmd {
	split := func(s string) []string { w, _ := shellWords(s); return w } // "code --wait", quoted args
	ed := split(getenv("VISUAL"))
	if len(ed) == 0 {
		ed = split(getenv("EDITOR"))
	}
	if len(ed) == 0 {
		ed = []string{"vi"}
	}
	return exec.Command(ed[0], append(ed[1:], path)...)
}

// confirmEditMsg drives the edit: the file is written, the editor takes the
// terminal (tea.ExecProcess), then the edited code runs.
func (m *Model) confirmEditMsg(msg tea.Msg) tea.Cmd {
	c := m.confirm
	switch msg := msg.(type) {
	case editorReadyMsg:
		if c == nil || msg.err != nil {
			if c != nil {
				c.editing = false
				m.notice(levelError, fmt.Sprintf("Could not edit the cell: %v", msg.err))
			}
			if msg.path != "" { // the prompt went (cancelled): no editor, no file
				return func() tea.Msg { _ = os.Remove(msg.path); return nil }
			}
			return nil
		}
		path := msg.path
		return tea.ExecProcess(editorCommand(m.opts.Getenv, path), func(err error) tea.Msg { return readEdited(path, err) })
	case editedMsg:
		if c == nil {
			return nil
		}
		c.editing = false
		if msg.err != nil {
			m.notice(levelError, msg.err.Error())
			return nil
		}
		c.answer(confirmReply{code: msg.code, run: true})
		m.confirm = nil
	}
	return nil
}
