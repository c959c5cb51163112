package sandbox

import (
	"context"
	"errors"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// CONTRACT (lead): the exported shapes below are what session/, doctor and
// the tests build on. The sandbox owner fills in the bodies and may add to
// them; changing a signature needs a word with the lead.

// Limits caps what one session's container may use. Zero fields take the
// defaults in DefaultLimits.
type Limits struct {
	Memory      int64   // bytes of RAM; swap is never added (memory+swap = memory)
	CPUs        float64 // cores
	PIDs        int64   // processes and threads
	TmpSize     int64   // bytes of /tmp (tmpfs)
	OutputSize  int64   // bytes of /output
	OutputFiles int     // files harvested from /output per session
}

// DefaultLimits are the limits quarry uses unless configured otherwise.
var DefaultLimits = Limits{
	Memory:      2 << 30,
	CPUs:        2,
	PIDs:        256,
	TmpSize:     256 << 20,
	OutputSize:  1 << 30,
	OutputFiles: 1000,
}

// Options configure one session.
type Options struct {
	Image     string        // image reference; empty means ImageRef()
	OutputDir string        // host folder for harvested files and figures; created if missing
	Timeout   time.Duration // per-cell wall-clock limit; 0 means 120s
	Limits    Limits
	SessionID string // empty means a fresh random id
}

// Session is one container with one live Python kernel.
type Session struct {
	id string
}

var errTODO = errors.New("sandbox: not implemented yet")

// Start creates and starts a container and returns once the kernel is ready
// with pandas, numpy and matplotlib imported.
func (e *Engine) Start(ctx context.Context, opts Options) (*Session, error) {
	return nil, errTODO
}

// ID is the session id carried in the container's labels.
func (s *Session) ID() string { return s.id }

// Exec runs one cell. onChunk (may be nil) receives output as it happens.
// Cancelling ctx interrupts the cell: the result then has Error.Kind
// ErrInterrupted and the kernel's variables survive when it can be done.
// A non-nil error means the sandbox itself failed (engine gone), not the code.
func (s *Session) Exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
	return kernel.Result{}, errTODO
}

// AddFile makes a host file readable (read-only) at /data/<base name> and
// profiles it inside the sandbox. The host file is never modified.
func (s *Session) AddFile(ctx context.Context, hostPath string) (kernel.Profile, error) {
	return kernel.Profile{}, errTODO
}

// Interrupt sends KeyboardInterrupt to the running cell, if any.
func (s *Session) Interrupt() error { return errTODO }

// Restart replaces the kernel with a fresh one; attached files are kept.
func (s *Session) Restart(ctx context.Context) error { return errTODO }

// Close removes the container and everything created for it. Safe to call
// more than once and after the engine went away.
func (s *Session) Close() error { return nil }

// Sweep removes containers and volumes whose owning quarry process no longer
// exists, and returns how many objects it removed.
func (e *Engine) Sweep(ctx context.Context) (int, error) { return 0, nil }
