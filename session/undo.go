package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// turnRecord is what Undo needs of one question: the kernel's checkpoint at
// its start and the cells that ran, in case the checkpoint's copy is lost
// and the state has to be rebuilt by running them again.
type turnRecord struct {
	question string
	start    sandbox.Checkpoint
	cells    []cellRecord
	sources  []ground.Source // what its cells showed, for checking answers' numbers
	// rebuilt: asked before the sandbox was rebuilt or moved (rebuild.go);
	// start belongs to the sandbox before, so undoing it replays.
	rebuilt bool
}

type cellRecord struct {
	num     int
	code    string
	ok      bool
	lost    bool // the kernel was fresh after it: nothing before it counts
	rewound bool // the kernel went back to the question's start: the question's earlier cells do not count
}

func cellRecordOf(num int, code string, r kernel.Result) cellRecord {
	return cellRecord{num: num, code: code, ok: r.Error == nil, lost: r.StateLost, rewound: r.Rewound}
}

// resumedTurns are the turns of a resumed session's record, for Undo: they
// have no checkpoint (the zero one), so undoing one rebuilds the kernel.
func resumedTurns(turns []Turn) []turnRecord {
	out := make([]turnRecord, len(turns))
	for i, t := range turns {
		out[i].question = t.Question
		for _, c := range t.Cells {
			out[i].cells = append(out[i].cells, cellRecordOf(c.Num, c.Code, c.Result))
			out[i].sources = append(out[i].sources, cellSources(c.Num, c.Result)...)
		}
	}
	return out
}

// Undone says what Undo took back.
type Undone struct {
	Question string
	// Removed are files of the output folder the question wrote: they are
	// gone from it and from the sandbox. Changed are files it rewrote: they
	// keep their new contents.
	Removed, Changed []string
	// Replayed counts cells run again because the question's checkpoint
	// was lost (a crash or the OOM killer ended it); 0 when it held.
	Replayed int
	// Warning says why the state may differ from before the question: a
	// cell that failed when it ran again.
	Warning string
}

// ErrNothingToUndo: no question since the session began or since Reset.
var ErrNothingToUndo = errors.New("nothing to undo: no question was asked since the session began (or since /reset)")

// beginTurn checkpoints the kernel before a question, so Undo can return to
// this moment; a failed checkpoint only makes that undo slower (a replay).
// The checkpoint is taken while the model's first request goes out (the
// kernel may still be importing, and forks only after): the question's
// cells wait for it (exec), and Ask for it before it returns.
func (s *Session) beginTurn(ctx context.Context, sb *sandbox.Session, prompt string) (*turnRecord, chan struct{}) {
	s.turns = append(s.turns, turnRecord{question: prompt})
	t := &s.turns[len(s.turns)-1]
	done := make(chan struct{})
	s.mu.Lock()
	s.checkpointing = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		t.start, _ = sb.Checkpoint(ctx)
	}()
	return t, done
}

// checkpointed waits for the running question's checkpoint, if any. It
// does not give up on a cancelled question: the checkpoint is bounded, and
// Exec then reports the interruption as it always does.
func (s *Session) checkpointed() {
	s.mu.Lock()
	done := s.checkpointing
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (t *turnRecord) note(e agent.Event) {
	if e.Kind == agent.EventCellDone && e.Result != nil {
		t.cells = append(t.cells, cellRecordOf(e.Cell, e.Code, *e.Result))
		t.sources = append(t.sources, cellSources(e.Cell, *e.Result)...)
	}
}

// Undo takes back the last question: its answer and cells leave the
// conversation and the model's context, the kernel returns to the state it
// had before it (variables made are gone, changed ones have their old
// values), and files it wrote in the output folder are removed. Calling it
// again goes one more question back. It waits for a running question, like
// Ask. It publishes an agent.EventUndo with the question taken back, which
// the record keeps: every reader then leaves the turn out.
func (s *Session) Undo(ctx context.Context) (Undone, error) {
	if s.ag == nil && s.opts.Tool == "" {
		return Undone{}, errors.New("this session has no model: it reruns cells only")
	}
	if err := s.acquire(ctx); err != nil {
		return Undone{}, err
	}
	if len(s.turns) == 0 {
		s.release(StateReady, nil)
		return Undone{}, ErrNothingToUndo
	}
	s.setState(StateBusy, nil)
	u, err := s.undo(ctx)
	if err != nil {
		err = s.maskErr(fmt.Errorf("undo: %w", err))
		s.release(StateFailed, err)
		return u, err
	}
	s.release(StateReady, nil)
	return u, nil
}

func (s *Session) undo(ctx context.Context) (Undone, error) {
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	last := s.turns[len(s.turns)-1]
	var r sandbox.Rewound
	if last.start == (sandbox.Checkpoint{}) || last.rebuilt {
		// Asked before the session was resumed: no checkpoint of it exists.
		// Its files stay in the folder; the record no longer lists them.
		if err := sb.Restart(ctx); err != nil {
			return Undone{}, fmt.Errorf("kernel restart: %w", err)
		}
	} else {
		var err error
		if r, err = sb.Rewind(ctx, last.start); err != nil {
			return Undone{}, err
		}
	}
	s.turns = s.turns[:len(s.turns)-1]
	s.ahead = aheadCheckpoint{} // taken after the call undone: not a state to return to
	question := last.question
	if s.ag != nil {
		question, _ = s.ag.Undo()
	} else if len(last.cells) > 0 {
		s.toolCells = last.cells[0].num - 1 // RunCell numbers from there again, as the sandbox does
	}
	u := Undone{Question: s.mask.Mask(question), Removed: r.Removed, Changed: r.Changed}
	if r.At != last.start || last.start == (sandbox.Checkpoint{}) || last.rebuilt {
		cells := s.rebuildCells(r.At)
		err := s.replay(ctx, cells)
		var re *ReplayError
		switch {
		case errors.As(err, &re):
			u.Replayed, u.Warning = re.Index, s.mask.Mask(re.Error())
			s.note(fmt.Sprintf("[quarry] The last question was taken back and the kernel rebuilt by running the earlier cells again, but %s. Variables made from that cell on are missing: compute them again before using them.", re.why()))
		case err != nil:
			return u, err
		default:
			u.Replayed = len(cells)
		}
	}
	switch {
	case u.Warning != "":
	case last.rebuilt:
		u.Warning = "that question was asked before the sandbox was rebuilt: the files it wrote stay in the output folder"
	case last.start == (sandbox.Checkpoint{}):
		u.Warning = "that question was asked before the session was resumed: the files it wrote stay in the output folder"
	}
	s.emit(agent.Event{Kind: agent.EventUndo, Text: question})
	return u, nil
}

// rebuildCells are the cells that bring a kernel Rewind left at an
// earlier checkpoint (or fresh) to the end of the remaining questions.
func (s *Session) rebuildCells(at sandbox.Checkpoint) []Cell {
	from := 0
	for i, t := range s.turns {
		if t.start == at && at != (sandbox.Checkpoint{}) {
			from = i
		}
	}
	return stateCells(s.turns[from:])
}

// stateCells are the cells that rebuild, from a fresh kernel, the state
// turns left it in, as they ran: those that succeeded, none from before a
// fresh start or from a question's cells the kernel went back past. Undo
// and resume both replay them.
func stateCells(turns []turnRecord) []Cell {
	var cells []Cell
	for _, t := range turns {
		begin := len(cells)
		for _, c := range t.cells {
			switch {
			case c.lost:
				cells, begin = nil, 0
			case c.rewound:
				cells = cells[:begin]
			}
			if c.ok {
				cells = append(cells, Cell{Num: c.num, Code: c.code, Status: CellOK})
			}
		}
	}
	return cells
}
