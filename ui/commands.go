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
)

// startCmd starts the sandbox in the background as the chat opens.
func (m *Model) startCmd() tea.Cmd {
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg { return startedMsg{err: b.Start(ctx)} }
}

// attachCmd checks (when asked) and uploads one file; the session waits for
// the sandbox if it is still starting.
func (m *Model) attachCmd(path string, check, announce bool) tea.Cmd {
	m.chips.adding(path)
	if !m.started {
		// The session refuses uploads before Start; they wait here.
		m.pending = append(m.pending, pendingAttach{path, check, announce})
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
		return attachedMsg{path: path, profile: p, err: err, announce: announce}
	}
}

type pendingAttach struct {
	path            string
	check, announce bool
}

// flushPending uploads what was attached while the sandbox started.
func (m *Model) flushPending() tea.Cmd {
	var cmds []tea.Cmd
	p := m.pending
	m.pending = nil
	for _, a := range p {
		cmds = append(cmds, m.attachCmd(a.path, a.check, a.announce))
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
			cmds = append(cmds, m.attachCmd(p, false, true))
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

func (m *Model) filesText() string {
	items := m.fileChips()
	if len(items) == 0 {
		return "No files attached: drop one on the terminal or use /attach PATH."
	}
	var b strings.Builder
	b.WriteString("Attached files:")
	for _, c := range items {
		b.WriteString("\n  " + c.label())
		switch {
		case c.profile != nil:
			p := c.profile
			b.WriteString(" — " + p.Path)
			if p.Kind != "" {
				b.WriteString(" (" + p.Kind + ")") // the size is in the label already
			}
			if p.KindNote != "" {
				b.WriteString("\n    " + sanitizeLine(p.KindNote))
			}
			if p.EncodingSample != "" { // so a wrong encoding shows
				b.WriteString("\n    " + sanitizeLine(p.Encoding+": "+p.EncodingSample))
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
