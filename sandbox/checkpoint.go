package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quarry-cli/quarry/engine"
)

// Checkpoints: the kernel forks a copy of itself between cells (see
// pykernel/quarry_kernel/runtime/checkpoint.py); the copy shares every page copy-on-write and waits.
// Rewind wakes it and the live kernel leaves, so returning to a question's
// start costs a process switch, not a rerun of its cells (and a kernel that
// dies comes back at the newest copy: kernel_revive.go). Copies are lost
// when the OOM killer takes them (they go before the kernel) or when the
// container restarts (a death with no copy left, Restart); Rewind then
// reaches an earlier one, or a fresh kernel, and says so: the caller replays
// the cells from there.

// Checkpoint is a state of the kernel that Rewind can return to. The zero
// Checkpoint is a fresh kernel.
type Checkpoint struct{ seq int64 }

// Rewound says where Rewind brought the kernel and what it did to the
// output folder.
type Rewound struct {
	// At is the checkpoint the kernel is at now: the one asked for, or an
	// earlier one when that one's copy was lost, or the zero Checkpoint (a
	// fresh kernel). The cells run between At and the checkpoint asked for
	// must be replayed to reach it.
	At Checkpoint
	// Removed are files of the output folder written after the checkpoint:
	// they are gone from the host folder and from /output.
	Removed []string
	// Changed are files written before the checkpoint and rewritten after:
	// they keep their new contents (earlier versions are not kept).
	Changed []string
	Notes   []string
}

// maxCheckpoints is how many copies the kernel keeps; older ones are ended
// (an undo that far back replays from the oldest left). Each is one
// process under the pids limit.
const maxCheckpoints = 16

// checkpointTimeout bounds a checkpoint or a rewind: a fork and a few
// file operations, seconds at worst under memory pressure.
const checkpointTimeout = 30 * time.Second

// checkpointInfo is what the host keeps of a checkpoint.
type checkpointInfo struct {
	seq   int64
	gen   int // kernel start the copy lives in: a restart ends them all
	cells int
	files map[string]int // harvested names and their write counts
}

var errCheckpointGone = errors.New("checkpoint unknown: it was rewound to or dropped")

// Checkpoint keeps the kernel's present state. When the kernel cannot fork
// a copy (the pids limit, memory) or is not running, the checkpoint is
// still recorded and a later Rewind reaches an earlier state instead, and
// says so. The error is for a closed session or an engine that went away.
func (s *Session) Checkpoint(ctx context.Context) (Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Checkpoint{}, ErrClosed
	}
	ctx = context.WithoutCancel(ctx) // a fork takes milliseconds; abandoning one costs the kernel
	s.ckseq++
	info := &checkpointInfo{seq: s.ckseq, gen: s.gen, cells: s.cells, files: s.harvest.versions()}
	s.ckpts = append(s.ckpts, info)
	cp := Checkpoint{info.seq}
	f, err := s.request(ctx, map[string]any{"op": "checkpoint", "seq": info.seq}, "checkpoint")
	switch {
	case errors.Is(err, errKernelGone), err == nil && f.Error != nil:
		return cp, nil // no copy: the next cell starts a fresh kernel, or the fork failed
	case err != nil:
		return cp, err
	}
	if n := len(f.Alive); n > maxCheckpoints {
		_, err := s.request(ctx, map[string]any{"op": "drop", "seqs": f.Alive[:n-maxCheckpoints]}, "dropped")
		if err != nil && !errors.Is(err, errKernelGone) {
			return cp, err
		}
	}
	return cp, nil
}

// Rewind returns the kernel, the cell numbering and the output folder to
// cp; cp and every later checkpoint are used up. Files in /tmp stay as they
// are, except the SQL database (views, macros and small tables), which
// comes back too.
func (s *Session) Rewind(ctx context.Context, cp Checkpoint) (Rewound, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Rewound{}, ErrClosed
	}
	i := s.checkpointIndex(cp)
	if i < 0 {
		return Rewound{}, errCheckpointGone
	}
	target := s.ckpts[i]
	var r Rewound
	at := int64(0)
	// Half a rewind is worse than none: it runs to the end once begun.
	ctx = context.WithoutCancel(ctx)
	if s.holdsCopy(i) {
		f, err := s.request(ctx, map[string]any{"op": "restore", "seq": target.seq}, "restored")
		switch {
		case errors.Is(err, engine.ErrUnreachable):
			return r, err
		case err == nil && s.reachable(f.At, i):
			at = f.At
			r.Notes = append(r.Notes, boundNotes(f.Notes)...)
		}
		// Otherwise no copy was left, or the one woken died: start afresh.
	}
	if at == 0 {
		if s.closing.Load() {
			return r, ErrClosed
		}
		rctx, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if err := s.restartKernel(rctx); err != nil {
			return r, s.engineError(fmt.Errorf("kernel restart: %w", err))
		}
	}
	r.At = Checkpoint{at}
	r.Removed, r.Changed = s.harvest.rollback(target.files)
	s.cells = target.cells
	s.ckpts = s.ckpts[:i]
	return r, nil
}

func (s *Session) checkpointIndex(cp Checkpoint) int {
	for i, c := range s.ckpts {
		if c.seq == cp.seq {
			return i
		}
	}
	return -1
}

// holdsCopy tells whether the live kernel may still hold a copy at or
// before checkpoint i: copies of earlier kernel starts are gone.
func (s *Session) holdsCopy(i int) bool {
	if k := s.getK(); k == nil || k.dead() {
		return false
	}
	for _, c := range s.ckpts[:i+1] {
		if c.gen == s.gen {
			return true
		}
	}
	return false
}

// reachable checks the kernel's claim (untrusted) that it is at seq: a
// checkpoint of this kernel start at or before checkpoint i.
func (s *Session) reachable(seq int64, i int) bool {
	for _, c := range s.ckpts[:i+1] {
		if c.seq == seq && c.gen == s.gen {
			return true
		}
	}
	return false
}

// errKernelGone: the kernel's stream ended while a request waited.
var errKernelGone = errors.New("the kernel stopped")

// request sends one operation that is not a cell and waits for its answer.
func (s *Session) request(ctx context.Context, msg map[string]any, answer string) (frame, error) {
	k, id, err := s.send(msg)
	if err != nil {
		return frame{}, err
	}
	defer k.want.Store(0)
	clock := newOpClock(checkpointTimeout)
	defer clock.stop()
	if answer != "checkpoint" { // only a checkpoint waits for the imports
		clock.begin()
	}
	for {
		select {
		case f := <-k.frames:
			if f.ID == id && f.T == "running" {
				clock.begin()
			}
			if f.ID == id && f.T == answer {
				return f, nil
			}
		case <-k.done:
			return frame{}, errKernelGone
		case <-clock.timer.C:
			return frame{}, s.replaceKernel(ctx, fmt.Errorf("%s: no answer from the kernel in %s", msg["op"], checkpointTimeout))
		case <-ctx.Done():
			return frame{}, s.replaceKernel(ctx, fmt.Errorf("%s: %w", msg["op"], ctx.Err()))
		}
	}
}

// send gives an operation that is not a cell the next request id and sends
// it; the kernel's frames of that id are taken until the caller stores 0
// in k.want.
func (s *Session) send(msg map[string]any) (*kconn, int64, error) {
	k := s.getK()
	if k == nil || k.dead() {
		return nil, 0, errKernelGone
	}
	s.seq++
	id := s.seq
	k.want.Store(id)
	msg["id"] = id
	if err := k.send(msg); err != nil {
		k.want.Store(0)
		return nil, 0, s.engineError(err)
	}
	return k, id, nil
}

// replaceKernel starts a fresh kernel after a request was abandoned: the
// old one may still answer it later, out of turn.
func (s *Session) replaceKernel(ctx context.Context, why error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
	defer cancel()
	if err := s.restartKernel(rctx); err != nil {
		return s.engineError(errors.Join(why, fmt.Errorf("kernel restart: %w", err)))
	}
	return why
}
