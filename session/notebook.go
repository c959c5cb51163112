package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// A chat that continues a notebook (quarry NOTEBOOK.ipynb): the notebook's
// inputs are attached as a rerun attaches them, its folder's layout is the
// working folder, and its code cells run in the kernel as cells of the
// session (shown, recorded and exported like the model's, before them);
// the model is then given them with their outputs as the conversation so
// far, and the notebook's text cells as a note.

// NotebookRun is a notebook to continue.
type NotebookRun struct {
	Name   string // the notebook's file name, for the model and the user
	Inputs []RerunInput
	// Folders are the folders its code writes into (RerunOptions.Folders).
	Folders []string
	Cells   []Cell // code only
	Text    string // the notebook's Markdown cells, joined
}

// maxNotebookText bounds the notebook's text given to the model.
const maxNotebookText = 8 << 10

// NotebookError says which of a notebook's cells stopped its run.
type NotebookError struct {
	Cell, Total int
	Err         *kernel.Error
}

func (e *NotebookError) Error() string {
	return fmt.Sprintf("the notebook's cell %d of %d failed: %s; the cells after it did not run", e.Cell, e.Total, errorLine(e.Err))
}

// ContinueNotebook runs nb in the session and gives it to the model. The
// kernel checks the cells first: lines it refuses are a *RefusedError and
// no cell runs. A cell that fails stops the run with a *NotebookError; the
// model is told and the chat goes on.
func (s *Session) ContinueNotebook(ctx context.Context, nb NotebookRun) error {
	if s.ag == nil {
		return errors.New("continue a notebook: the session has no model")
	}
	if err := s.acquire(ctx); err != nil {
		return err
	}
	err := s.continueNotebook(ctx, nb)
	s.release(StateReady, nil)
	return s.maskErr(err)
}

func (s *Session) continueNotebook(ctx context.Context, nb NotebookRun) error {
	s.setState(StateBusy, nil)
	if err := s.checkCells(ctx, nb.Name, []Turn{{Cells: nb.Cells}}); err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) { // nothing ran: the chat goes on without the notebook's cells
			s.ag.Note(s.mask.Mask("[quarry] The user opened the notebook " + nb.Name + ", but none of its cells ran, since quarry does not run these lines of it:\n" + refused.Error()))
		}
		return err
	}
	for _, in := range nb.Inputs {
		s.progress("attaching " + in.Name)
		if _, err := s.attach(ctx, in.Path, in.Name); err != nil {
			return err
		}
	}
	if err := s.makeLayout(ctx, nb.Inputs, nb.Folders); err != nil {
		return err
	}
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	sink := s.opts.Events
	turn := Turn{Question: fmt.Sprintf("Run the code cells of the notebook %s in the kernel.", nb.Name)}
	var failed *NotebookError
	s.progress(fmt.Sprintf("running %s: %d cells", nb.Name, len(nb.Cells)))
	for i, c := range nb.Cells {
		n := i + 1
		s.publish(agent.Event{Kind: agent.EventCellStart, Cell: n, Code: c.Code, Time: time.Now()}, sink)
		r, err := sb.Exec(ctx, c.Code, func(ch kernel.Chunk) {
			s.publish(agent.Event{Kind: agent.EventCellOutput, Cell: n, Chunk: &ch}, sink)
		})
		if err != nil {
			return fmt.Errorf("the notebook's cell %d: %w", n, err)
		}
		if r.StateLost {
			s.remakeLayout(ctx, sb, &r)
		}
		s.publish(agent.Event{Kind: agent.EventCellDone, Cell: n, Code: c.Code, Result: &r, Time: time.Now()}, sink)
		turn.Cells = append(turn.Cells, Cell{Num: n, Code: c.Code, Status: statusOf(r), Result: r})
		if r.Error != nil {
			failed = &NotebookError{Cell: n, Total: len(nb.Cells), Err: r.Error}
			break
		}
	}
	s.ag.Load(PastTurns([]Turn{turn}), false)
	s.turns = resumedTurns([]Turn{turn})
	note := fmt.Sprintf("[quarry] This chat continues the notebook %s, someone's analysis: its code cells ran above, in order, in this kernel, so their variables exist; "+
		"the user's files are read at the paths the notebook uses.", nb.Name)
	if failed != nil {
		note += " " + failed.Error() + ": variables made from that cell on are missing."
	}
	if t := strings.TrimSpace(nb.Text); t != "" {
		note += "\nThe notebook's text cells:\n" + shorten(t, maxNotebookText)
	}
	s.ag.Note(s.mask.Mask(note))
	if failed != nil {
		return failed
	}
	s.progress(fmt.Sprintf("%s ran: %d cells", nb.Name, len(nb.Cells)))
	return nil
}
