package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
)

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
	Image     string        // image reference; empty means image.Ref()
	OutputDir string        // host folder for harvested files and figures; created if missing
	Timeout   time.Duration // per-cell wall-clock limit; 0 means 120s
	Limits    Limits
	SessionID string // empty means a fresh random id
	// Earlier continues a session in the folder an earlier quarry process
	// harvested into: see Earlier. Nil wants a new or empty folder.
	Earlier *Earlier
	// DB answers sql(query, db=NAME) for databases the host reaches; nil
	// means none (database files in /data are read in the kernel).
	DB DB
	// Background starts a sandbox ahead of its session (a warm pool) at the
	// engine's lowest CPU weight, so its start and imports yield to the
	// sessions running; Foreground gives it the usual weight.
	Background bool
	// Cluster is the Dask scheduler the kernel's client reaches through the
	// relay; nil means none.
	Cluster Cluster
}

// Earlier is what a session harvested before this process took it over.
// The folder may then hold files; the ones listed here are the session's
// own (a later version of one replaces it, as within one process), any
// other file stays untouched, and figure numbers go on after Cells.
type Earlier struct {
	Cells   int
	Files   []kernel.File // from /output
	Figures []kernel.File
}

// DefaultTimeout is the per-cell wall-clock limit when Options.Timeout is 0.
const DefaultTimeout = 120 * time.Second

// interruptGrace is how long an interrupted cell may take to come back
// before the kernel is killed and replaced.
var interruptGrace = 3 * time.Second

// readyTimeout bounds a kernel start (container start, imports).
const readyTimeout = 90 * time.Second

// Session is one container with one live Python kernel.
type Session struct {
	id      string
	e       *engine.Engine
	opts    Options
	lim     Limits
	cid     string // container id
	harvest *harvester

	mu             sync.Mutex // one request (cell, profile, restart) at a time
	kmu            sync.Mutex // guards k, which Close reads without waiting for mu
	k              *kconn
	closing        atomic.Bool
	seq            int64 // protocol request ids (cells and profiles)
	boxMu          sync.Mutex
	box            kernel.FigureBox // inline figures wanted by the front end
	cells          int              // cells run, for figure names that match the user's cell numbers
	closed         bool
	released       bool          // Release handed the container to another process: Close leaves it
	info           frame         // the ready frame: versions
	enforced       Enforcement   // what the guard measured at the last kernel start
	lastKernelTime time.Duration // kernel-side time of the last cell's code
	startup        startupTimes  // where the last (re)start's time went
	runtimeNote    string        // why the sandbox runs under another runtime than the engine's default
	gen            int           // kernel starts: a restart ends every checkpoint's copy
	ckseq          int64
	ckpts          []*checkpointInfo // oldest first

	relay     *relay         // the way to Options.Cluster, one per kernel start
	clusterMu sync.Mutex     // guards cluster, which ClusterInfo reads while a cell runs
	cluster   kernel.Cluster // what the kernel found there at its last connection

	intr      chan struct{} // Interrupt() for the running cell
	closeOnce sync.Once
	closeErr  error
}

// startupTimes split a start for the benchmarks: the engine's share (create,
// attach and start) against the kernel's (Python start-up and imports).
type startupTimes struct {
	Create      time.Duration // volumes and container create
	EngineStart time.Duration // attach and ContainerStart, until the process runs
	Kernel      time.Duration // kernel source sent until the ready frame
}

// ErrClosed is returned by a Session used after Close.
var ErrClosed = errors.New("sandbox: session closed")

var validID = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$`)

func newSessionID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Start creates and starts a container and returns once the kernel is
// ready; it imports pandas, numpy and matplotlib after that, and what needs
// them waits (pykernel/quarry_kernel/runtime/imports.py; ImportsEnv keeps the old order).
func Start(ctx context.Context, e *engine.Engine, opts Options) (*Session, error) {
	if opts.SessionID == "" {
		opts.SessionID = newSessionID()
	} else if !validID.MatchString(opts.SessionID) {
		return nil, fmt.Errorf("sandbox start: session id %q: use letters, digits, '.', '_' or '-' (at most 64)", opts.SessionID)
	}
	if opts.Image == "" {
		opts.Image = image.Ref()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.OutputDir == "" {
		return nil, errors.New("sandbox start: no output folder given (Options.OutputDir)")
	}
	lim := opts.Limits.withDefaults()
	h, err := newHarvester(opts.OutputDir, harvestLimits{MaxFiles: lim.OutputFiles, MaxBytes: lim.OutputSize}, opts.Earlier)
	if err != nil {
		return nil, fmt.Errorf("sandbox start: %w", err)
	}
	s := &Session{id: opts.SessionID, e: e, opts: opts, lim: lim, harvest: h, intr: make(chan struct{}, 1)}
	if opts.Earlier != nil {
		s.cells = opts.Earlier.Cells
	}
	err = s.create(ctx)
	if err == nil && s.resizeOutput() {
		// The first session on a host whose pages are not 4 KiB: its
		// /output was sized in the wrong unit, so it is made again.
		err = removeSessionObjects(ctx, e, s.id)
		if err == nil {
			s.cid = ""
			err = s.create(ctx)
		}
	}
	if err != nil {
		cleanup, cancel := engine.CleanupContext(ctx)
		defer cancel()
		h.Close()
		if k := s.getK(); k != nil {
			k.Close()
		}
		return nil, fmt.Errorf("sandbox start: %w", errors.Join(err, removeSessionObjects(cleanup, e, s.id)))
	}
	return s, nil
}

// resizeOutput reports a Podman /output sized in pages of the wrong size,
// after teaching the engine the page size the container measured.
func (s *Session) resizeOutput() bool {
	page := s.enforced.PageSize
	if s.e.Kind() != engine.Podman || page <= 0 || page == s.e.PageSize() {
		return false
	}
	s.e.SetPageSize(page)
	if k := s.getK(); k != nil {
		k.Close()
		s.setK(nil)
	}
	return true
}

func (s *Session) create(ctx context.Context) error {
	err := s.createOnce(ctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	// The engine's runtime may refuse this host's cgroup layout (crun on a
	// hybrid layout) where another runtime the engine offers does not.
	rt, ok := s.e.Fallback(engine.Message(err))
	if !ok {
		return err
	}
	if rerr := removeSessionObjects(ctx, s.e, s.id); rerr != nil {
		return errors.Join(err, rerr)
	}
	s.cid = ""
	if err2 := s.createOnce(ctx); err2 != nil {
		s.e.ForgetRuntime()
		if engine.LayoutRefusal(engine.Message(err2)) {
			// Podman runs every container under the runtime its service
			// was configured with, whatever a create asks for.
			return fmt.Errorf("%w (quarry asked for %s instead; the engine kept its own runtime)", err, rt)
		}
		return fmt.Errorf("%w; with the runtime %s instead: %w", err, rt, err2)
	}
	_, why := s.e.RuntimeChoice()
	s.runtimeNote = "the sandbox runs under " + rt + ": " + why
	return nil
}

func (s *Session) createOnce(ctx context.Context) error {
	t0 := time.Now()
	if err := createVolumes(ctx, s.e, s.id, s.lim); err != nil {
		return err
	}
	id, err := s.e.CreateContainer(ctx, object(s.id, containerName(s.id), "sandbox"),
		traitsOf(s.e).containerOptions(s.id, s.opts.Image, s.lim))
	if err != nil {
		return err
	}
	s.cid = id
	if s.opts.Background {
		s.weigh(ctx, id, lowCPUWeight)
	}
	s.startup.Create = time.Since(t0)
	return s.startKernel(ctx)
}

// startKernel attaches to the stopped container, starts it, sends the kernel
// source and waits for the kernel's ready frame.
func (s *Session) startKernel(ctx context.Context) error {
	t0 := time.Now()
	hj, err := s.e.Attach(ctx, s.cid)
	if err != nil {
		return err
	}
	k := newKconn(hj)
	if _, err := s.e.Client().ContainerStart(ctx, s.cid, client.ContainerStartOptions{}); err != nil {
		k.Close()
		return fmt.Errorf("container start: %w", err)
	}
	t1 := time.Now()
	s.startup.EngineStart = t1.Sub(t0)
	if err := k.sendRaw(kernelPayload(guardCall(s.lim))); err != nil {
		k.Close()
		return fmt.Errorf("kernel start: %w", err)
	}
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	for {
		select {
		case f := <-k.frames:
			if f.T == "limits" && f.Limits != nil {
				s.enforced = f.Limits.enforcement(s.lim)
				continue
			}
			if f.T != "ready" {
				continue
			}
			s.setK(k)
			s.info = f
			s.gen++
			s.startup.Kernel = time.Since(t1)
			return s.joinCluster(ctx)
		case <-k.done:
			k.Close()
			msg := exitSummary(s.e, s.cid)
			if se := k.stderr.String(); se != "" {
				msg += ": " + engine.LastLines(se, 8)
			}
			return fmt.Errorf("kernel start: the kernel exited before it was ready (%s)", msg)
		case <-timer.C:
			k.Close()
			return fmt.Errorf("kernel start: not ready after %s", readyTimeout)
		case <-ctx.Done():
			k.Close()
			return fmt.Errorf("kernel start: %w", ctx.Err())
		}
	}
}

// restartKernel kills the container (and every process the code left in
// it) and starts it again: /data survives, /output (a tmpfs) starts empty.
func (s *Session) restartKernel(ctx context.Context) error {
	if k := s.getK(); k != nil {
		k.Close()
		s.setK(nil)
	}
	if _, err := s.e.Client().ContainerKill(ctx, s.cid, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil &&
		!isNotRunning(err) {
		return fmt.Errorf("container kill: %w", err)
	}
	wait := s.e.Client().ContainerWait(ctx, s.cid, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-wait.Result:
	case err := <-wait.Error:
		return fmt.Errorf("container wait: %w", err)
	case <-ctx.Done():
		return fmt.Errorf("container wait: %w", ctx.Err())
	}
	return s.startKernel(ctx)
}

// ID is the session id carried in the container's labels.
func (s *Session) ID() string { return s.id }

// ContainerID is the engine's id of the session's container.
func (s *Session) ContainerID() string { return s.cid }

// OutputDir is the host folder harvested files and figures are written to.
func (s *Session) OutputDir() string { return s.harvest.Dir() }

// PythonVersion reports the kernel's Python and pandas versions; pandas is
// empty unless it was imported before ready (ImportsEnv).
func (s *Session) PythonVersion() (python, pandas string) { return s.info.Python, s.info.Pandas }

// Interrupt sends KeyboardInterrupt to the running cell, if any.
func (s *Session) Interrupt() error {
	select {
	case s.intr <- struct{}{}:
	default:
	}
	return nil
}

// Restart replaces the kernel with a fresh one; attached files are kept.
func (s *Session) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.restartKernel(ctx); err != nil {
		return fmt.Errorf("kernel restart: %w", err)
	}
	s.ckpts = nil
	return nil
}

// Close removes the container and everything created for it. Safe to call
// more than once and after the engine went away.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	s.closeOnce.Do(func() {
		// Closing the stream first unblocks a running Exec; it then finds
		// the session closed.
		s.closing.Store(true)
		if k := s.getK(); k != nil {
			k.Close()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.relay != nil {
			s.relay.Close()
		}
		s.closed = true
		if !s.released {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s.closeErr = removeSessionObjects(ctx, s.e, s.id)
		}
		if s.harvest != nil {
			s.harvest.Close()
		}
	})
	return s.closeErr
}

// Exec runs one cell. onChunk (may be nil) receives output as it happens.
// Cancelling ctx interrupts the cell: the result then has Error.Kind
// ErrInterrupted and the kernel's variables survive when it can be done.
// A non-nil error means the sandbox itself failed (engine gone), not the code.
func (s *Session) Exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return kernel.Result{}, ErrClosed
	}
	return s.exec(ctx, 0, code, onChunk, true)
}

// Replay runs a cell again to rebuild the kernel's state: like Exec, but
// nothing reaches the host (figures and files were harvested when the cell
// first ran) and the cell does not count for figure numbers. num is the
// cell's number in the session, for its tracebacks.
func (s *Session) Replay(ctx context.Context, num int, code string) (kernel.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return kernel.Result{}, ErrClosed
	}
	return s.exec(ctx, num, code, nil, false)
}

func (s *Session) getK() *kconn {
	s.kmu.Lock()
	defer s.kmu.Unlock()
	return s.k
}

func (s *Session) setK(k *kconn) {
	s.kmu.Lock()
	defer s.kmu.Unlock()
	s.k = k
}

// SetFigureBox asks for every figure of the cells from now on to be drawn
// also at the size the front end shows it (kernel.File.Inline); the zero box
// asks for none. Safe to call while a cell runs.
func (s *Session) SetFigureBox(b kernel.FigureBox) {
	s.boxMu.Lock()
	s.box = b
	s.boxMu.Unlock()
}

func (s *Session) figureBox() kernel.FigureBox {
	s.boxMu.Lock()
	defer s.boxMu.Unlock()
	return s.box
}
