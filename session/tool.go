package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// A tool session (Options.Tool) has no model: a client outside calls the
// kernel, as an MCP client does. Each RunCell is a turn of its own (its
// question says which call it was), so the record, the index, undo, the
// number checks, export, rerun and --resume treat it as they treat a
// chat's turns; Attach and Undo work as in the chat.

// ErrNotTool: RunCell on a session that has a model.
var ErrNotTool = errors.New("this session has a model: its cells run through its questions")

// RunCell runs code as one turn whose question is label: the kernel is
// checkpointed first (so Undo returns to before it), the cell is recorded
// and its output checked numbers can be grounded in. onChunk, when set,
// hears the output as it comes, masked. The returned cell's result is
// masked as the record keeps it; an error means the sandbox broke, not
// the code (a traceback is the cell's Result.Error). It waits for Start
// and for any other operation, like Ask; cancelling ctx interrupts the
// cell and the kernel keeps its state.
func (s *Session) RunCell(ctx context.Context, label, code string, onChunk func(kernel.Chunk)) (Cell, error) {
	if s.opts.Tool == "" {
		return Cell{}, ErrNotTool
	}
	if err := s.acquire(ctx); err != nil {
		return Cell{}, s.maskErr(err)
	}
	s.setState(StateBusy, nil)
	s.mu.Lock()
	rec, sb := s.rec, s.sb
	s.mu.Unlock()
	rec.question(label)
	turn, checkpointed := s.toolTurn(ctx, sb, label)
	s.toolCells++
	n := s.toolCells
	sink := s.opts.Events
	s.publish(agent.Event{Kind: agent.EventCellStart, Cell: n, Code: code}, sink)
	r, err := s.exec(ctx, code, func(ch kernel.Chunk) {
		s.publish(agent.Event{Kind: agent.EventCellOutput, Cell: n, Chunk: &ch}, func(e agent.Event) {
			if sink != nil {
				sink(e)
			}
			if onChunk != nil {
				onChunk(*e.Chunk)
			}
		})
	})
	<-checkpointed // bounded: a checkpoint ignores ctx and has its own limit
	s.mu.Lock()
	s.checkpointing = nil
	s.mu.Unlock()
	if err != nil {
		err = s.maskErr(fmt.Errorf("cell %d: %w", n, err))
		s.release(StateFailed, err)
		return Cell{}, err
	}
	done := agent.Event{Kind: agent.EventCellDone, Cell: n, Code: code, Result: &r, Time: time.Now()}
	turn.note(done)
	s.publish(done, sink)
	s.release(StateReady, nil)
	go s.checkpointAhead(sb)
	return Cell{Num: n, Code: s.mask.Mask(code), Status: statusOf(r), Result: *maskResult(s.mask, &r)}, nil
}

// toolTurn starts a call's turn from the checkpoint taken after the call
// before it (checkpointAhead), or takes one now, as a question does.
func (s *Session) toolTurn(ctx context.Context, sb *sandbox.Session, label string) (*turnRecord, chan struct{}) {
	if !s.ahead.ok {
		return s.beginTurn(ctx, sb, label)
	}
	s.turns = append(s.turns, turnRecord{question: label, start: s.ahead.cp})
	s.ahead = aheadCheckpoint{}
	done := make(chan struct{})
	close(done)
	return &s.turns[len(s.turns)-1], done
}

// aheadCheckpoint is the kernel's checkpoint taken after a call for the
// next one (guarded by op): a tool client's calls come back to back, with
// no model request to hide a checkpoint behind as a question has, but the
// time its own model takes between calls hides it just as well.
type aheadCheckpoint struct {
	cp sandbox.Checkpoint
	ok bool
}

// checkpointAhead takes the next call's checkpoint now, in the operation
// slot, so that a call arriving meanwhile waits for it rather than taking
// its own; anything that changes the kernel otherwise (Undo) drops it.
func (s *Session) checkpointAhead(sb *sandbox.Session) {
	if s.acquire(context.Background()) != nil {
		return // closed
	}
	if cp, err := sb.Checkpoint(context.Background()); err == nil {
		s.ahead = aheadCheckpoint{cp: cp, ok: true}
	}
	s.release(StateReady, nil)
}

// CheckNumbers checks the numbers of text (an answer written outside, as
// an MCP client's) against what the session's cells showed and the
// attached files' profiles, as the chat checks an answer. It waits for a
// running cell.
func (s *Session) CheckNumbers(ctx context.Context, text string) ([]ground.Claim, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, s.maskErr(err)
	}
	defer s.release(StateReady, nil)
	claims := s.numbers(s.mask.Mask(text), "")
	return maskEvent(s.mask, agent.Event{Numbers: claims}).Numbers, nil
}

// Mask hides the session's secrets (the key, the sources' credentials) in
// text the session did not make itself, before it leaves for a client.
func (s *Session) Mask(text string) string { return s.mask.Mask(text) }

// note tells the model something about the session, when there is one.
func (s *Session) note(text string) {
	if s.ag != nil {
		s.ag.Note(text)
	}
}
