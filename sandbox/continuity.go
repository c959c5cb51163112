package sandbox

import (
	"context"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
)

// What a caller needs to notice a lost sandbox and to carry a session on
// into a new one (another image, or after the container or the engine went
// away): whether the kernel's stream is up, a channel that closes when it
// ends, and what was harvested so far, for the new sandbox's Earlier.

// Alive reports whether the kernel's stream is up: false once the kernel,
// its container or the engine went away (no engine call is made).
func (s *Session) Alive() bool {
	k := s.getK()
	return k != nil && !k.dead() && !s.closing.Load()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Gone is closed when the present kernel's stream ends (a restart makes a
// new one: ask again after an operation).
func (s *Session) Gone() <-chan struct{} {
	if k := s.getK(); k != nil {
		return k.done
	}
	return closedChan
}

// Harvested is what this sandbox brought into the output folder, as the
// Earlier of a sandbox that continues the session there: the cells it
// counted and the files and figures it wrote.
func (s *Session) Harvested() Earlier {
	s.harvest.mu.Lock()
	defer s.harvest.mu.Unlock()
	e := Earlier{}
	for name, size := range s.harvest.written {
		f := kernel.File{Name: name, Size: size}
		if s.harvest.figures[name] {
			e.Figures = append(e.Figures, f)
		} else {
			e.Files = append(e.Files, f)
		}
	}
	s.mu.Lock()
	e.Cells = s.cells
	s.mu.Unlock()
	return e
}

// RemoveSession removes the container and volumes named for a session id,
// whatever is left of them: a sandbox whose Close could not reach the
// engine, before another starts under the same id.
func RemoveSession(ctx context.Context, e *engine.Engine, sessionID string) error {
	return removeSessionObjects(ctx, e, sessionID)
}
