package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// InputCheck is a recorded input compared with its host file now.
type InputCheck struct {
	Input
	// Problem is "" when the file is as it was; otherwise it says what
	// changed, in words that follow the file's path.
	Problem string
	Gone    bool // the file is missing or unreadable (or its path was never recorded)
}

// CheckInputs compares each input of the record with the host file at its
// recorded path, by SHA-256.
func (rec *Record) CheckInputs() []InputCheck {
	var out []InputCheck
	for _, in := range rec.Inputs() {
		c := InputCheck{Input: in}
		switch st, err := os.Stat(in.Path); {
		case in.Path == "":
			c.Problem, c.Gone = "was recorded without its host path (an older quarry)", true
		case err != nil:
			c.Problem, c.Gone = "is gone", true
		case !st.Mode().IsRegular():
			c.Problem, c.Gone = "is no longer a regular file", true
		case in.SHA256 == "":
			c.Problem = "was recorded without its SHA-256, so whether it changed cannot be told"
		default:
			if now := fileSHA256(in.Path); now != in.SHA256 {
				c.Problem = "has changed since the session: " + changeText(in, st, now, rec.attachedAt(in.Name))
			}
		}
		out = append(out, c)
	}
	return out
}

// MatchInput finds the input that old names in --map OLD=NEW: its name
// under /data, its recorded path, or its base name.
func (rec *Record) MatchInput(old string) (Input, bool) {
	for _, in := range rec.Inputs() {
		if old == in.Name || old == in.Path || filepath.Base(old) == in.Name {
			return in, true
		}
	}
	return Input{}, false
}

// Restore brings a resumed session back, in order: its inputs attached
// again under their names (from paths[name] when given, else from where
// they were), the conversation loaded into the agent, and the kernel
// rebuilt by replaying the cells that succeeded, with progress as events.
// A cell that fails on replay stops it: the error is a *ReplayError, the
// model is told, and the session stays usable.
func (s *Session) Restore(ctx context.Context, paths map[string]string) error {
	rec := s.opts.Resume
	if rec == nil || s.ag == nil {
		return errors.New("restore: the session was not opened to resume one")
	}
	if err := s.acquire(ctx); err != nil {
		return err
	}
	err := s.restore(ctx, rec, paths)
	s.release(StateReady, nil)
	return s.maskErr(err)
}

func (s *Session) restore(ctx context.Context, rec *Record, paths map[string]string) error {
	s.setState(StateBusy, nil)
	var moved []string
	for _, in := range rec.Inputs() {
		host := in.Path
		if p, ok := paths[in.Name]; ok {
			host = p
		}
		if err := CheckFile(host); err != nil {
			return fmt.Errorf("%s (attached as %s in the session): %w", host, in.Name, err)
		}
		s.progress("attaching " + in.Name)
		now, err := s.attach(ctx, host, in.Name)
		if err != nil {
			return err
		}
		if in.SHA256 != "" && now.SHA256 != in.SHA256 {
			moved = append(moved, in.Name)
		}
	}
	turns := rec.Turns()
	s.ag.Load(PastTurns(turns), rec.markdownMode())
	s.ag.NumberAfter(rec.earlier().Cells) // the sandbox counts from there: one numbering
	s.turns = resumedTurns(turns)
	if len(moved) > 0 {
		s.ag.Note(fmt.Sprintf("[quarry] This session was resumed with other data for %s than the earlier turns used: results computed from now on may differ from the ones above.", strings.Join(moved, ", ")))
	}
	err := s.replay(ctx, rec.replayCells())
	var re *ReplayError
	if errors.As(err, &re) {
		s.ag.Note(fmt.Sprintf("[quarry] This session was resumed and its kernel rebuilt by running the earlier cells again, but %s. Variables made from that cell on are missing: compute them again before using them.", re.why()))
	}
	return err
}

// replayCells are the cells that rebuild the kernel of a resumed session:
// the state its turns left, as undo would rebuild it.
func (rec *Record) replayCells() []Cell {
	return stateCells(resumedTurns(rec.Turns()))
}

// ReplayError says which cell stopped a replay and why.
type ReplayError struct {
	Cell         int // the cell's number in the session
	Index, Total int // 1-based position in the replay
	Err          *kernel.Error
}

func (e *ReplayError) why() string {
	return fmt.Sprintf("cell %d (%d of %d) failed: %s", e.Cell, e.Index, e.Total, errorLine(e.Err))
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("rebuilding the kernel stopped: %s; the cells before it ran", e.why())
}

func errorLine(e *kernel.Error) string {
	msg := strings.TrimSpace(e.Message)
	if e.Type != "" {
		msg = e.Type + ": " + msg
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return shorten(msg, 200)
}

// Replay runs cells again in the session's kernel, in order, to rebuild the
// state they made; nothing they draw or save reaches the session folder
// again. Progress goes out as events ("rebuilding the kernel: cell 7 of
// 12"); the first cell that fails stops it with a *ReplayError. It waits
// for any other operation, like Ask.
func (s *Session) Replay(ctx context.Context, cells []Cell) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	s.setState(StateBusy, nil)
	err := s.replay(ctx, cells)
	s.release(StateReady, nil)
	return s.maskErr(err)
}

// replay is Replay for a caller that holds the operation slot.
func (s *Session) replay(ctx context.Context, cells []Cell) error {
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	if sb == nil {
		return errors.New("replay: the sandbox is not running")
	}
	t0 := time.Now()
	for i, c := range cells {
		s.progress(fmt.Sprintf("rebuilding the kernel: cell %d of %d", i+1, len(cells)))
		res, err := sb.Replay(ctx, c.Num, c.Code)
		if err != nil {
			return fmt.Errorf("rebuilding the kernel at cell %d: %w", c.Num, err)
		}
		if res.Error != nil {
			re := &ReplayError{Cell: c.Num, Index: i + 1, Total: len(cells), Err: res.Error}
			s.mu.Lock()
			rec := s.rec
			s.mu.Unlock()
			rec.add(Entry{Kind: EntryWarning, Text: s.mask.Mask(re.Error())})
			return re
		}
	}
	if len(cells) > 0 {
		s.progress(fmt.Sprintf("kernel rebuilt: %d cells in %s", len(cells), time.Since(t0).Round(10*time.Millisecond)))
	}
	return nil
}

// changeText says how an input's file differs from the one the session
// read: size, SHA-256, when it was modified, and the shape it had (the
// shape now is known once it is attached again).
func changeText(in Input, now os.FileInfo, sum string, attached time.Time) string {
	short := func(h string) string { return h[:min(8, len(h))] }
	var parts []string
	if in.Size != now.Size() {
		parts = append(parts, fmt.Sprintf("size %s then, %s now", kernel.FormatSize(in.Size), kernel.FormatSize(now.Size())))
	} else {
		parts = append(parts, fmt.Sprintf("same size (%s)", kernel.FormatSize(in.Size)))
	}
	parts = append(parts, fmt.Sprintf("SHA-256 %s then, %s now", short(in.SHA256), short(sum)))
	mod := "modified " + now.ModTime().Local().Format("2006-01-02 15:04")
	if !attached.IsZero() {
		mod += ", after the session read it at " + attached.Local().Format("2006-01-02 15:04")
	}
	parts = append(parts, mod)
	if p := in.Profile; p != nil && (p.Rows > 0 || len(p.Columns) > 0) {
		parts = append(parts, fmt.Sprintf("it had %d rows × %d columns", p.Rows, len(p.Columns)))
	}
	return strings.Join(parts, "; ")
}

// attachedAt is when the session last attached the input called name.
func (rec *Record) attachedAt(name string) time.Time {
	var t time.Time
	for _, e := range rec.Entries {
		if e.Kind == EntryInput && e.Input != nil && e.Input.Name == name {
			t = e.Time
		}
	}
	return t
}
