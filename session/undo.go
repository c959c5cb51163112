package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/sandbox"
)

// turnRecord is what Undo needs of one question: the kernel's checkpoint at
// its start and the cells that ran, in case the checkpoint's copy is lost
// and the state has to be rebuilt by running them again.
type turnRecord struct {
	question string
	start    sandbox.Checkpoint
	cells    []cellRecord
}

type cellRecord struct {
	code    string
	ok      bool
	lost    bool // the kernel was fresh after it: nothing before it counts
	rewound bool // the kernel went back to the question's start: the question's earlier cells do not count
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
func (s *Session) beginTurn(ctx context.Context, sb *sandbox.Session, prompt string) *turnRecord {
	cp, _ := sb.Checkpoint(ctx)
	s.turns = append(s.turns, turnRecord{question: prompt, start: cp})
	return &s.turns[len(s.turns)-1]
}

func (t *turnRecord) note(e agent.Event) {
	if e.Kind == agent.EventCellDone && e.Result != nil {
		t.cells = append(t.cells, cellRecord{code: e.Code, ok: e.Result.Error == nil, lost: e.Result.StateLost, rewound: e.Result.Rewound})
	}
}

// Undo takes back the last question: its answer and cells leave the
// conversation and the model's context, the kernel returns to the state it
// had before it (variables made are gone, changed ones have their old
// values), and files it wrote in the output folder are removed. Calling it
// again goes one more question back. It waits for a running question, like
// Ask. It publishes an agent.EventUndo with the question taken back.
func (s *Session) Undo(ctx context.Context) (Undone, error) {
	if err := s.acquire(ctx); err != nil {
		return Undone{}, err
	}
	if len(s.turns) == 0 {
		s.release(StateReady, nil)
		return Undone{}, ErrNothingToUndo
	}
	s.setState(StateBusy, nil)
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	last := s.turns[len(s.turns)-1]
	r, err := sb.Restore(ctx, last.start)
	if err != nil {
		err = s.maskErr(fmt.Errorf("undo: %w", err))
		s.release(StateFailed, err)
		return Undone{}, err
	}
	s.turns = s.turns[:len(s.turns)-1]
	question, _ := s.ag.Undo()
	u := Undone{Question: s.mask.Mask(question), Removed: r.Removed, Changed: r.Changed}
	if r.At != last.start {
		u.Replayed, u.Warning, err = s.rebuild(ctx, sb, r.At)
		if err != nil {
			err = s.maskErr(fmt.Errorf("undo: %w", err))
			s.release(StateFailed, err)
			return u, err
		}
	}
	s.emit(agent.Event{Kind: agent.EventUndo, Text: question})
	s.release(StateReady, nil)
	return u, nil
}

// rebuild brings a kernel that Restore left at an earlier checkpoint (or
// fresh) to the end of the remaining questions by running their cells
// again, as they ran: only those that succeeded, none from before a fresh
// start. A cell that fails now stops it; the warning says which.
func (s *Session) rebuild(ctx context.Context, sb *sandbox.Session, at sandbox.Checkpoint) (int, string, error) {
	from := 0
	for i, t := range s.turns {
		if t.start == at && at != (sandbox.Checkpoint{}) {
			from = i
		}
	}
	var codes []string
	for _, t := range s.turns[from:] {
		begin := len(codes)
		for _, c := range t.cells {
			switch {
			case c.lost:
				codes, begin = nil, 0
			case c.rewound:
				codes = codes[:begin]
			}
			if c.ok {
				codes = append(codes, c.code)
			}
		}
	}
	for i, code := range codes {
		s.progress(fmt.Sprintf("rebuilding the kernel: cell %d of %d", i+1, len(codes)))
		res, err := sb.Replay(ctx, code)
		if err != nil {
			return i, "", err
		}
		if res.Error != nil {
			return i + 1, s.mask.Mask(fmt.Sprintf("the checkpoint was lost and the kernel was rebuilt by running the cells again, but cell %d of %d failed this time (%s: %s); variables made after it are missing",
				i+1, len(codes), res.Error.Kind, clipLine(res.Error.Message))), nil
		}
	}
	return len(codes), "", nil
}

func clipLine(s string) string {
	const n = 200
	for i, r := range s {
		if r == '\n' || i >= n {
			return s[:i] + "…"
		}
	}
	return s
}
