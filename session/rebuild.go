package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// A session outlives its sandbox: when the container or the engine goes
// away, or packages are added and the session moves to the image that has
// them, the next sandbox gets the session's files again and its state is
// rebuilt by replaying the cells that made it (stateCells, as undo and
// resume do). A cell that fails now is named and the rest go on.

// rebuild brings the session into a working sandbox with its state. With
// ref empty the sandbox was lost: its container is started again when it
// is still there (the files in /data with it), else a new sandbox is made
// on the session's image. With ref set the session moves to that image
// (extras were added); rerun says the running cell will run again there,
// so the new sandbox counts it anew. It returns the sandbox and the one
// line that says what happened, published as a warning too.
func (s *Session) rebuild(ctx context.Context, ref string, rerun bool) (*sandbox.Session, string, error) {
	t0 := time.Now()
	s.mu.Lock()
	old := s.sb
	s.mu.Unlock()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err := s.engine.Client().Ping(pctx, client.PingOptions{})
	cancel()
	if err != nil { // nothing can be rebuilt now; the old sandbox is kept for a restart then
		return old, "", fmt.Errorf("%w: the sandbox was lost and the engine is not reachable (%v): the next cell rebuilds it once the engine is back", engine.ErrUnreachable, err)
	}
	var sb *sandbox.Session
	if ref == "" {
		s.progress("the sandbox was lost: starting it again")
		if err := old.Restart(ctx); err == nil {
			sb = old
		}
		ref = s.image.Ref
	}
	var problems []string
	if sb == nil {
		var err error
		if sb, problems, err = s.remake(ctx, old, ref, rerun); err != nil {
			return old, "", err
		}
	}
	problems = append(problems, s.restoreState(ctx, sb, t0, true, sb != old))
	line := strings.Join(problems, "; ")
	s.emit(agent.Event{Kind: agent.EventWarning, Text: line})
	return sb, line, nil
}

// remake closes the old sandbox and starts a new one on ref in the same
// output folder (its harvest goes on), with the session's files attached
// again from the host. problems name files that could not be.
func (s *Session) remake(ctx context.Context, old *sandbox.Session, ref string, rerun bool) (*sandbox.Session, []string, error) {
	earlier := old.Harvested()
	if rerun {
		earlier.Cells-- // the running cell is counted again when it reruns
	}
	old.Close()
	sandbox.RemoveSession(ctx, s.engine, s.id) // what a failed close left under the session's names
	s.progress("starting a new sandbox")
	sb, err := sandbox.Start(ctx, s.engine, s.sandboxOptions(ref, &earlier))
	if err != nil {
		return nil, nil, fmt.Errorf("the sandbox could not be started again: %w", err)
	}
	s.mu.Lock()
	s.sb = sb
	sb.SetFigureBox(s.box)
	s.mu.Unlock()
	var problems []string
	rec, err := LoadRecord(s.outDir)
	if err != nil {
		return sb, []string{"the session's files could not be attached again: " + err.Error()}, nil
	}
	for _, in := range rec.Inputs() {
		err := CheckFile(in.Path)
		var f *os.File
		if err == nil {
			f, err = s.openChecked(in.Path)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s could not be attached again (%v)", in.Name, err))
			continue
		}
		s.progress("attaching " + in.Name + " again")
		if _, err := sb.AddOpenFileAs(ctx, f, in.Name, newUploadLines(s.progress).report); err != nil {
			problems = append(problems, fmt.Sprintf("%s could not be attached again (%v)", in.Name, err))
		} else if in.SHA256 != "" && handleSHA256(f) != in.SHA256 {
			problems = append(problems, in.Name+" changed on the host since it was attached: the state is rebuilt from the file as it is now")
		}
		f.Close()
	}
	return sb, problems, nil
}

// replayAll runs the session's state cells in sb, the notebook's layout
// first when withLayout: how many it replayed and those that failed, named.
func (s *Session) replayAll(ctx context.Context, sb *sandbox.Session, withLayout bool) (int, []string) {
	s.mu.Lock()
	layout := s.layout
	s.mu.Unlock()
	if layout != "" && withLayout {
		if res, err := sb.Replay(ctx, 0, layout); err != nil || res.Error != nil {
			s.emit(agent.Event{Kind: agent.EventWarning, Text: "the notebook's files could not be linked again: read them from /data"})
		}
	}
	cells := stateCells(s.turns)
	var failed []string
	for i, c := range cells {
		s.progress(fmt.Sprintf("rebuilding the kernel: cell %d of %d", i+1, len(cells)))
		res, err := sb.Replay(ctx, c.Num, c.Code)
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("cell %d could not run (%v)", c.Num, err))
		case res.Error != nil:
			failed = append(failed, fmt.Sprintf("cell %d failed now (%s)", c.Num, errorLine(res.Error)))
		}
		if err != nil && (errors.Is(err, sandbox.ErrClosed) || !sb.Alive()) {
			break
		}
	}
	return len(cells), failed
}

// restoreState replays the state cells into sb and says so in one line.
// In a new sandbox (moved) every question's checkpoint was the old one's,
// so undo replays; the same sandbox restarted tells its lost checkpoints
// apart by itself (Rewound.At).
func (s *Session) restoreState(ctx context.Context, sb *sandbox.Session, t0 time.Time, withLayout, moved bool) string {
	if moved {
		for i := range s.turns {
			s.turns[i].start, s.turns[i].rebuilt = sandbox.Checkpoint{}, true
		}
	}
	n, failed := s.replayAll(ctx, sb, withLayout)
	line := fmt.Sprintf("the sandbox was rebuilt: %d cell%s replayed in %s", n, plural(n), time.Since(t0).Round(100*time.Millisecond))
	if len(failed) > 0 {
		line += "; " + strings.Join(failed, "; ") + ": what they made is missing"
	}
	return line
}

// afterLoss rebuilds the state a cell's kernel lost (its container was
// killed while it ran, and the sandbox started a fresh kernel): the cell
// says so instead of "the variables are lost".
func (s *Session) afterLoss(ctx context.Context, sb *sandbox.Session, r *kernel.Result) {
	if s.ag == nil || !r.StateLost || !sb.Alive() {
		return
	}
	line := s.restoreState(ctx, sb, time.Now(), false, false) // remakeLayout linked the files
	r.StateLost = false                                       // the earlier cells' state is back; this cell's is not
	if r.Error != nil {
		r.Error.Message = strings.Replace(r.Error.Message, "the variables are lost", "the earlier cells were replayed", 1)
	}
	r.Notes = append(r.Notes, line)
	s.emit(agent.Event{Kind: agent.EventWarning, Text: line})
}
