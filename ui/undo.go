package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Undone is what the session took back on /undo.
type Undone struct {
	Question string
	Removed  []string // files of the output folder the question wrote, now gone
	Changed  []string // files it rewrote, kept with their new contents
	Replayed int      // cells run again because the checkpoint was lost
	Warning  string   // why the state may differ from before the question
}

type undoneMsg struct {
	u   Undone
	err error
}

// turnSpan is the blocks one question added to the transcript, first to
// last (pointers: streaming blocks come and go and shift indices).
type turnSpan struct{ first, last *block }

func (m *Model) undoCmd() tea.Cmd {
	if m.running {
		m.status.hint = "An answer is running: press Esc to cancel it first."
		return nil
	}
	if m.undoing {
		return nil
	}
	m.undoing = true
	m.status.hint = "Taking back the last question…"
	b, ctx, dir := m.opts.Backend, m.ctx, m.opts.OutputDir
	tables := m.tablesOfLastTurn()
	return func() tea.Msg {
		u, err := b.Undo(ctx)
		if err == nil {
			u.Removed = append(u.Removed, removeTables(dir, tables)...)
		}
		return undoneMsg{u: u, err: err}
	}
}

// tablesOfLastTurn are the files the table viewer saved of the last
// question's cells: the chat wrote them, so its /undo takes them back.
func (m *Model) tablesOfLastTurn() []string {
	n := len(m.spans)
	if n == 0 {
		return nil
	}
	var out []string
	for _, c := range m.spanCells(m.spans[n-1]) {
		out = append(out, m.savedTables[c]...)
	}
	return out
}

// spanCells are the numbers of the cells in s.
func (m *Model) spanCells(s turnSpan) []int {
	var out []int
	in := false
	for _, b := range m.transcript.blocks {
		if b == s.first {
			in = true
		}
		if in && b.kind == kindCell {
			out = append(out, b.cell.num)
		}
		if b == s.last {
			break
		}
	}
	return out
}

// removeTables removes the viewer's saved tables and names the ones gone,
// relative to the session folder as the session names its files.
func removeTables(dir string, paths []string) []string {
	var gone []string
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			continue // moved or removed by the user meanwhile: not ours to name
		}
		name := p
		if rel, err := filepath.Rel(dir, p); err == nil && dir != "" {
			name = filepath.ToSlash(rel)
		}
		gone = append(gone, name)
	}
	return gone
}

func (m *Model) applyUndone(msg undoneMsg) {
	m.undoing, m.status.hint, m.status.progress = false, "", ""
	if msg.err != nil {
		if !errors.Is(msg.err, context.Canceled) {
			m.notice(levelError, "/undo: "+msg.err.Error())
		}
		return
	}
	if n := len(m.spans); n > 0 {
		for _, c := range m.spanCells(m.spans[n-1]) {
			delete(m.savedTables, c) // the next cells take these numbers
		}
		m.dropSpan(m.spans[n-1])
		m.spans = m.spans[:n-1]
	}
	back := strings.TrimSpace(m.input.value()) == ""
	if back {
		m.input.setValue(msg.u.Question) // to edit and ask again
	}
	m.notice(levelInfo, undoneText(msg.u, back))
	if msg.u.Warning != "" {
		m.notice(levelWarn, msg.u.Warning)
	}
}

// dropSpan removes a question's blocks and forgets its cells, tables and
// figures.
func (m *Model) dropSpan(s turnSpan) {
	first, last := -1, -1
	for i, b := range m.transcript.blocks {
		if b == s.first {
			first = i
		}
		if b == s.last {
			last = i
		}
	}
	if first < 0 || last < first { // cleared with /clear
		return
	}
	m.transcript.blocks = append(m.transcript.blocks[:first], m.transcript.blocks[last+1:]...)
	m.transcript.anchor = nil
	m.cur = nil
	m.cells = map[int]*block{}
	m.lastTable, m.lastFigure = nil, ""
	for _, b := range m.transcript.blocks {
		if b.kind != kindCell {
			continue
		}
		m.cells[b.cell.num] = b
		if r := b.cell.result; r != nil {
			if r.Value != nil && r.Value.Table != nil {
				m.lastTable, m.lastTableCell = r.Value.Table, b.cell.num
			}
			if n := len(r.Figures); n > 0 {
				m.lastFigure = r.Figures[n-1].Path
			}
		}
	}
}

func undoneText(u Undone, back bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Took back “%s”: the conversation and the kernel are as they were before it.", oneLine(u.Question, 80))
	if u.Replayed > 0 {
		fmt.Fprintf(&b, " (Its checkpoint was lost, so %d earlier cells ran again.)", u.Replayed)
	}
	if len(u.Removed) > 0 {
		fmt.Fprintf(&b, "\nRemoved from the output folder: %s.", nameList(u.Removed))
	}
	if len(u.Changed) > 0 {
		fmt.Fprintf(&b, "\nKept as they are now (the question rewrote them; earlier versions are not kept): %s.", nameList(u.Changed))
	}
	if back {
		b.WriteString("\nThe question is back in the input to edit and send again.")
	}
	return b.String()
}

func nameList(names []string) string {
	const show = 5
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
