// Package session owns one chat session for both front ends: it wires the
// configuration, the sandbox (started in the background), the agent and the
// session's output folder and record, and adapts the sandbox to the
// agent's Kernel interface. It also reads records back: the index of
// sessions, resume (Restore, Replay) and rerun. It must not import ui,
// headless or render.
//
// Life of a session:
//
//	s := session.New(opts)          // no I/O; s.Err() reports a bad model config
//	go s.Start(ctx)                 // engine, orphan sweep, image, container; progress as events
//	s.Attach(ctx, "q1.csv")         // waits for Start, uploads and profiles
//	s.Ask(ctx, "variance?", emit)   // one agent turn; its cells and answer go to the record
//	s.Close()                       // removes the container; safe twice
//
// Output folder: Options.OutputDir when set (used exactly as given, e.g. from
// --output-dir), otherwise <Config.OutputDir>/<session id>; a resumed
// session keeps its own. It receives the harvested figures and files and
// the session record (session.jsonl, see record.go), and the index
// (index.go) names it so `quarry sessions` finds it from anywhere.
//
// Events: the agent's events of a turn go to Ask's emit; the session's own
// (start-up progress, the sandbox's state) go to Options.Events. Both pass
// through one function, publish, which masks them (package secret) and
// hands them to the record, so every front end receives masked text.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/source"
)

// Options configure a session.
type Options struct {
	Config config.Config
	// OutputDir is this session's own output folder; empty means
	// <Config.OutputDir>/<session id>.
	OutputDir string
	// Events receives the session's own events, masked: an EventProgress
	// per start-up step (and per line of the image build, first run only)
	// and an EventSandbox at each change of the sandbox's state. It is
	// called from the session's goroutines; nil discards them.
	Events func(agent.Event)
	// Engine, when set, is used instead of connecting; the session then does
	// not close it. Tests and doctor share one engine this way.
	Engine *engine.Engine
	// Agent overrides fields of the agent configuration derived from Config
	// (HTTP client, retry limits); nil keeps AgentConfig(Config).
	Agent func(*agent.Config)
	// Resume continues a recorded session in its folder, under its id;
	// Restore then brings back its inputs, conversation and kernel.
	Resume *Record
	// Index is the folder of the session index; empty means DefaultIndex().
	Index string
	// Build is quarry's version, kept in the record's settings.
	Build string
	// Rerun makes a session without a model, for Rerun: it names what is
	// rerun (a session id or a notebook) in the record.
	Rerun string
	// Sources are the live databases sql(query, db=NAME) reaches, opened
	// and checked by the caller; the session closes them.
	Sources *source.Set
	// Cluster is the Dask cluster the kernel's client reaches through the
	// sandbox's relay, parsed by the caller; nil means none.
	Cluster *source.Dask
	// Install, when set, asks the user whether to add the Debian packages
	// a failed cell lacked ("xgboost is in Debian (python3-xgboost 3.3.0,
	// 3 packages, 12.9 MiB): add it to the sandbox? [y/N]"), and blocks
	// until they answer or ctx ends. Nil means no one may be asked (-p
	// without --allow-install): the turn ends naming the command.
	Install func(ctx context.Context, question string) (bool, error)
	// Extras adds packages to the sandbox image and names the image with
	// them; nil is the host's archive and repository (image.HostInstaller).
	Extras *image.Installer
	// Tool makes a session without a model driven by a tool client (an MCP
	// client, named here): each RunCell is a turn of its own (tool.go).
	Tool string
	// ReadCheck, when set, is asked about a host file right before it is
	// read into the sandbox (an attach, and each file a rebuild attaches
	// again), with the handle it is then read through, opened without
	// following a link at its end (nil when the open failed: the check
	// says why); an error refuses it. The file is read only through that
	// handle (files.go: openChecked), so what was checked is what is read.
	// quarry mcp checks the path against its roots once more there, and
	// that the handle holds that file, so a link swapped in after the
	// client's call was checked (while the sandbox started, say) is
	// refused.
	ReadCheck func(path string, f *os.File) error
	// Pooled is a sandbox a Pool started ahead, for this session alone:
	// its id and folder become the session's, and Start takes it instead
	// of starting one. It needs Engine, the pool's.
	Pooled *Pooled
	// ReportAhead, when set, keeps a report builder's sandbox started
	// ahead of the report (build_ahead.go).
	ReportAhead *ReportAhead
}

// State is the sandbox's state, as EventSandbox reports it.
type State string

const (
	StateNew        State = "new"        // Start not called yet
	StateStarting   State = "starting"   // engine, image, container
	StateReady      State = "ready"      // idle, waiting for a prompt
	StateBusy       State = "busy"       // a turn or an upload is running
	StateRestarting State = "restarting" // Reset: a fresh kernel is coming up
	StateFailed     State = "failed"     // Start or Reset failed
	StateClosed     State = "closed"
)

// Session is one conversation with its sandbox.
type Session struct {
	opts   Options
	id     string
	outDir string

	mu       sync.Mutex
	state    State
	err      error // why StateFailed
	started  bool
	closed   bool
	ready    chan struct{} // closed when Start has finished, either way
	startErr error
	cancel   context.CancelFunc // aborts a Start in progress

	engine    *engine.Engine
	ownEngine bool
	builds    builds      // reports being built beside the session (build.go)
	prebuilt  *aheadBuild // a report builder's sandbox started ahead (build_ahead.go)
	sb        *sandbox.Session
	ag        *agent.Agent
	files     []kernel.Profile
	attached  []attachedFile // where each of files came from, in the same order
	rec       *recorder
	turns     []turnRecord // the questions asked, for Undo (guarded by op)
	startedAt time.Time
	op        chan struct{} // one kernel operation at a time (Attach, Ask, Reset, Restore, Replay, Undo)
	mask      *secret.Masker
	box       kernel.FigureBox // how the front end shows figures inline
	// checkpointing is closed when the running question's checkpoint is
	// taken; its cells wait for it. Nil between questions.
	checkpointing chan struct{}
	layout        string          // the notebook's folder layout, made again after a restart (rerun_layout.go)
	image         image.Derived   // the sandbox's image and its extras (extras.go)
	watch         chan struct{}   // closed by Close: ends the watch for a lost sandbox (lost.go)
	toolCells     int             // cells RunCell has numbered (guarded by op)
	ahead         aheadCheckpoint // the next RunCell's checkpoint, taken after the last (guarded by op)
}

// New prepares a session without any I/O. A model configuration the agent
// rejects leaves the session in StateFailed with that error.
func New(opts Options) *Session {
	s := &Session{
		opts:  opts,
		id:    newID(),
		state: StateNew,
		ready: make(chan struct{}),
		op:    make(chan struct{}, 1),
		watch: make(chan struct{}),
		mask:  secret.New(append(append(opts.Config.Secrets(), opts.Sources.Secrets()...), opts.Cluster.Secrets()...)...),
	}
	s.outDir = opts.OutputDir
	if opts.Pooled != nil {
		s.id = opts.Pooled.id
		if opts.Pooled.dir != "" {
			s.outDir = opts.Pooled.dir
		}
	}
	if opts.Resume != nil {
		s.id, s.outDir = opts.Resume.ID, opts.Resume.Dir
	}
	if s.outDir == "" {
		s.outDir = filepath.Join(OutputParent(opts.Config), s.id)
	}
	if abs, err := filepath.Abs(s.outDir); err == nil {
		s.outDir = abs
	}
	if opts.Rerun != "" || opts.Tool != "" {
		return s
	}
	cfg := AgentConfig(opts.Config)
	if opts.Agent != nil {
		opts.Agent(&cfg)
	}
	ag, err := agent.New(cfg, kernelFunc(s.exec))
	if err != nil {
		s.state, s.err = StateFailed, fmt.Errorf("model settings: %w", err)
	}
	s.ag = ag
	return s
}

// modelName is the model for the record; a rerun has none.
func (s *Session) modelName() string {
	if s.ag == nil {
		return ""
	}
	return s.ag.Model()
}

// newID is sortable by start time and unique enough for labels and folders.
func newID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ID is the session id: the output folder's default name and the value of
// the container's io.quarry.session label.
func (s *Session) ID() string { return s.id }

// OutputDir is the host folder of this session's figures, files and
// record (absolute).
func (s *Session) OutputDir() string { return s.outDir }

// Err is the configuration error found by New, or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateFailed && !s.started {
		return s.err
	}
	return nil
}

func (s *Session) setState(st State, err error) {
	s.mu.Lock()
	if s.closed && st != StateClosed {
		s.mu.Unlock()
		return
	}
	changed := s.state != st
	s.state, s.err = st, err
	s.mu.Unlock()
	if changed {
		s.emit(agent.Event{Kind: agent.EventSandbox, Text: string(st)})
	}
}

// wait blocks until Start has finished or ctx ends. Start may not have
// been called yet: front ends launch it in a goroutine and may call Attach
// right after.
func (s *Session) wait(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	return s.startErr
}

// acquire waits for Start and for any other kernel operation to finish.
func (s *Session) acquire(ctx context.Context) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	select {
	case s.op <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.op
		return errClosed
	}
	s.mu.Unlock()
	return nil
}

func (s *Session) release(st State, err error) {
	s.setState(st, err)
	<-s.op
}

// Close removes the sandbox (container and everything created for it),
// aborting a Start in progress, and closes the record. Safe to call
// twice; it does not depend on any caller's context.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.watch)
	started, cancel := s.started, s.cancel
	if !started { // release anyone waiting for a Start that will not come
		s.started, s.startErr = true, errClosed
		close(s.ready)
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if started {
		<-s.ready // the container, if one was made, is now in s.sb
	}
	s.builds.stop() // no report's sandbox outlives the session, nor its engine
	s.setState(StateClosed, nil)
	s.mu.Lock()
	sb, e, own, rec := s.sb, s.engine, s.ownEngine, s.rec
	s.mu.Unlock()
	if sb == nil && s.opts.Pooled != nil {
		sb = s.opts.Pooled.sb // closed before Start took it
	}
	var errs []error
	if sb != nil {
		if err := sb.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sandbox close: %w", err))
		}
	}
	if pd := s.opts.Pooled; pd != nil && pd.warm != nil {
		pd.warm.Close() // the holder removes what is left of the sandbox
	}
	if e != nil && own {
		errs = append(errs, e.Close())
	}
	s.opts.Sources.Close()
	if rec != nil {
		errs = append(errs, rec.Close())
		if !rec.hasWork() && s.opts.Resume == nil {
			s.forget() // no question, no cell: nothing to list or resume
		}
	}
	if s.opts.OutputDir == "" && s.opts.Resume == nil {
		os.Remove(s.outDir) // only when empty: a start that never got going leaves no clutter
	}
	return errors.Join(errs...)
}

// kernelFunc adapts the session's current sandbox to agent.Kernel; the
// sandbox.Session itself satisfies it, but it only exists after Start.
type kernelFunc func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error)

func (f kernelFunc) Exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
	return f(ctx, code, onChunk)
}

var _ agent.Kernel = (*sandbox.Session)(nil)

func (s *Session) exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	if sb == nil {
		return kernel.Result{}, errors.New("sandbox not running")
	}
	s.checkpointed()
	var rebuilt string
	if !sb.Alive() { // the container or the engine went away since the last cell
		var err error
		if sb, rebuilt, err = s.rebuild(ctx, "", false); err != nil {
			return kernel.Result{}, err
		}
	}
	r, err := sb.Exec(ctx, code, onChunk)
	if err == nil && r.StateLost {
		s.remakeLayout(ctx, sb, &r)
		s.afterLoss(ctx, sb, &r)
	}
	if err == nil && r.Error != nil && r.Error.Needs != nil {
		r, err = s.offerPackages(ctx, code, onChunk, r)
	}
	if rebuilt != "" {
		r.Notes = append([]string{rebuilt}, r.Notes...)
	}
	return r, err
}

// SetFigureBox says how the front end shows figures inline, so the kernel
// draws each also at that size (kernel.File.Inline). Safe at any time; it
// holds for the sandbox of now and one started later.
func (s *Session) SetFigureBox(b kernel.FigureBox) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.box = b
	if s.sb != nil {
		s.sb.SetFigureBox(b)
	}
}

// OutputParent is the folder that holds the sessions' folders: the
// config's output_dir, else ./quarry-output.
func OutputParent(c config.Config) string {
	if c.OutputDir != "" {
		return c.OutputDir
	}
	return "quarry-output"
}
