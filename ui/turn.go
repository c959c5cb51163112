package ui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// ask starts a turn. Ask runs in a Cmd; its events and its end are queued
// on the inbox, so Update sees them in order.
func (m *Model) ask(prompt string) tea.Cmd {
	m.turn++
	m.running, m.turnErr, m.turnOver, m.cancelling = true, false, false, false
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancelTurn = cancel
	turn, b, ib := m.turn, m.opts.Backend, m.inbox
	return func() tea.Msg {
		answer, err := b.Ask(ctx, prompt, func(e agent.Event) { ib.send(eventMsg{turn: turn, ev: e}) })
		ib.send(turnEndMsg{turn: turn, answer: answer, err: err})
		return nil
	}
}

// cancelRun interrupts the running turn: the cell is interrupted, the chat
// and the kernel's variables stay.
func (m *Model) cancelRun() {
	if m.cancelTurn != nil {
		m.cancelTurn()
	}
	if m.confirm != nil {
		m.confirm.answer(confirmReply{})
		m.confirm = nil
	}
	m.cancelling = true
	m.status.hint = "Cancelling…"
}

// applyInbox applies one queued message.
func (m *Model) applyInbox(msg any) tea.Cmd {
	switch msg := msg.(type) {
	case eventMsg:
		if msg.turn != m.turn {
			return nil // a late event of a cancelled turn
		}
		return m.applyEvent(msg.ev)
	case turnEndMsg:
		if msg.turn == m.turn {
			m.endTurn(msg)
			return m.reportAfterOpening(msg)
		}
	case sessionMsg:
		switch msg.Kind {
		case agent.EventProgress:
			m.status.progress = msg.Text
		case agent.EventSandbox:
			m.status.sandbox = msg.Text
		case agent.EventWarning: // a sandbox limit that does not hold, say
			m.notice(levelWarn, msg.Text)
		case agent.EventCellStart, agent.EventCellOutput, agent.EventCellDone: // a notebook's cells, run as the chat opens
			return m.applyEvent(agent.Event(msg))
		}
	case confirmRequest:
		m.finishStreaming()
		m.confirm = newConfirmPrompt(msg)
	}
	return nil
}

func (m *Model) applyEvent(ev agent.Event) tea.Cmd {
	switch ev.Kind {
	case agent.EventReasoning, agent.EventText, agent.EventCellOutput, agent.EventCellDone:
		m.transcript.grew() // blocks already on the list grow
	}
	switch ev.Kind {
	case agent.EventReasoning:
		m.addThinking(ev.Text)
	case agent.EventText:
		m.foldThinking()
		if m.cur == nil {
			m.cur = m.transcript.add(&block{kind: kindAssistant, streaming: true})
		}
		m.cur.text += ev.Text
		return m.scheduleStreamTick()
	case agent.EventRetry:
		// The deltas of the unfinished response are void.
		m.dropStreaming()
		m.dropThinking()
		m.notice(levelWarn, fmt.Sprintf("The model request failed (%s); retrying in %s, attempt %d.", ev.Text, render.FormatDuration(ev.Wait), ev.Attempt))
	case agent.EventCellStart:
		m.foldThinking()
		m.finishStreaming()
		start := ev.Time
		if start.IsZero() {
			start = m.opts.Now()
		}
		b := m.transcript.add(&block{kind: kindCell, cell: &cellState{num: ev.Cell, code: ev.Code, started: start}})
		m.cells[ev.Cell] = b
		m.status.running, m.status.since, m.status.cellWork = ev.Cell, start, ""
		return m.scheduleCellTick()
	case agent.EventCellOutput:
		if ev.Chunk != nil && ev.Chunk.Stream == kernel.Progress {
			if m.status.running == ev.Cell {
				m.status.cellWork = ev.Chunk.Text
			}
			return nil
		}
		if b := m.cells[ev.Cell]; b != nil && ev.Chunk != nil {
			b.cell.appendOutput(ev.Chunk.Text)
			b.ver++
		}
	case agent.EventCellDone:
		return m.cellDone(ev)
	case agent.EventUsage:
		if ev.Usage != nil {
			m.status.usage = *ev.Usage
		}
	case agent.EventWarning:
		if ev.Text == "cancelled" {
			return nil // endTurn says it in full
		}
		m.notice(levelWarn, ev.Text)
	case agent.EventIncomplete:
		m.notice(levelWarn, ev.Text)
	case agent.EventError:
		m.foldThinking()
		m.finishStreaming()
		m.turnErr, m.turnOver = true, true
		m.notice(levelError, ev.Text)
	case agent.EventTurnDone:
		m.turnOver = true
		m.foldThinking()
		if m.cur != nil {
			if ev.Text != "" {
				m.cur.text = ev.Text
			}
			m.cur.numbers = ev.Numbers
			m.finishStreaming()
		} else if ev.Text != "" {
			m.transcript.add(&block{kind: kindAssistant, text: ev.Text, numbers: ev.Numbers})
		}
	case agent.EventRevise:
		// verify = ask: the draft is void, the model answers again.
		m.dropStreaming()
		m.notice(levelWarn, ev.Text)
	}
	return nil
}

func (m *Model) cellDone(ev agent.Event) tea.Cmd {
	b := m.cells[ev.Cell]
	if b == nil {
		b = m.transcript.add(&block{kind: kindCell, cell: &cellState{num: ev.Cell, code: ev.Code}})
		m.cells[ev.Cell] = b
	}
	c := b.cell
	if ev.Code != "" {
		c.code = ev.Code
	}
	r := ev.Result
	if r == nil {
		r = &kernel.Result{}
	}
	c.result = r
	c.run = cellDone
	if e := r.Error; e != nil {
		switch e.Kind {
		case kernel.ErrInterrupted:
			c.run = cellInterrupted
		default:
			c.run = cellFailed
		}
	}
	if m.status.running == ev.Cell {
		m.status.running = 0
	}
	b.ver++
	var cmds []tea.Cmd
	for _, f := range r.Figures {
		c.figures = append(c.figures, &figure{file: f})
		m.lastFigure = f.Path
		var id uint32
		if m.kittyOn {
			id = m.kittyID()
		}
		cmds = append(cmds, loadFigure(ev.Cell, f, id, max(m.width-2, 10)))
	}
	if r.Value != nil && r.Value.Table != nil {
		m.lastTable, m.lastTableCell = r.Value.Table, ev.Cell
	}
	return tea.Batch(cmds...)
}

func (m *Model) endTurn(msg turnEndMsg) {
	m.foldThinking()
	m.finishStreaming()
	m.running, m.cancelling = false, false
	if m.cancelTurn != nil {
		m.cancelTurn()
		m.cancelTurn = nil
	}
	if m.confirm != nil {
		m.confirm = nil
	}
	// A cell that never reported its end was cut short.
	for _, b := range m.cells {
		if b.cell.run == cellRunning {
			b.cell.run, b.cell.result = cellInterrupted, &kernel.Result{Error: &kernel.Error{Kind: kernel.ErrInterrupted}}
			b.ver++
		}
	}
	m.status.running = 0
	m.status.hint = ""
	switch {
	case errors.Is(msg.err, context.Canceled):
		m.notice(levelWarn, "Interrupted. The chat and the kernel's variables are kept.")
	case msg.err != nil && !m.turnErr:
		m.notice(levelError, msg.err.Error())
	}
	if n := len(m.spans); n > 0 && len(m.transcript.blocks) > 0 {
		m.spans[n-1].last = m.transcript.blocks[len(m.transcript.blocks)-1]
	}
}

// finishStreaming turns the streaming answer into a finished, cached block.
func (m *Model) finishStreaming() {
	if m.cur == nil {
		return
	}
	m.cur.streaming = false
	m.cur.stream, m.cur.streamLines = nil, nil
	m.cur.ver++
	if m.cur.text == "" {
		m.removeBlock(m.cur)
	}
	m.cur = nil
}

func (m *Model) dropStreaming() {
	if m.cur != nil {
		m.removeBlock(m.cur)
		m.cur = nil
	}
}

func (m *Model) removeBlock(b *block) {
	for i := len(m.transcript.blocks) - 1; i >= 0; i-- {
		if m.transcript.blocks[i] == b {
			m.transcript.blocks = append(m.transcript.blocks[:i], m.transcript.blocks[i+1:]...)
			if m.transcript.anchor != nil && m.transcript.anchor.block >= i {
				m.transcript.anchor = nil
			}
			return
		}
	}
}
