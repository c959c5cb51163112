package session

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
)

// A warm pool (quarry mcp --http --warm N): sandboxes created and started
// ahead, each under the id and in the folder of the session it will be,
// so a client's first call waits for no start. Each is handed to one
// session only (Options.Pooled) and goes with that session; the pool only
// refills. Nothing of one session reaches another: a pooled sandbox is as
// new as one started for the session, no code ran in it before.

// Pool keeps up to its size of sandboxes started ahead.
type Pool struct {
	cfg  config.Config
	e    *engine.Engine
	size int
	log  func(string)

	ctx    context.Context // ends at Close: starts in progress stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	ready    []*Pooled
	starting int
	closed   bool
	failing  bool // the last start failed: no refill until a session took one
	// maxStarting caps the starts at once (0: none): the engine's side of
	// a start (create, runc) runs outside any container's CPU weight.
	maxStarting int
}

// Pooled is a sandbox started ahead, for one session.
type Pooled struct {
	id, dir string
	sb      *sandbox.Session // nil for one taken from a holder: warm
	warm    *Warm
	image   image.Derived
	db      *lateDB
}

// lateDB is the pooled sandbox's sql(db=) answer: the sources are the
// session's, known when it takes the sandbox.
type lateDB struct{ db atomic.Pointer[sourceDB] }

func (l *lateDB) QueryDB(ctx context.Context, name, query string, maxRows int64, timeout time.Duration, w io.Writer) (sandbox.DBResult, error) {
	d := l.db.Load()
	if d == nil {
		d = &sourceDB{}
	}
	return d.QueryDB(ctx, name, query, maxRows, timeout, w)
}

// NewPool starts filling a pool of size sandboxes on e with cfg's image
// and limits, their folders in cfg's output folder; log hears why a start
// failed. Close removes those no session took.
func NewPool(e *engine.Engine, cfg config.Config, size int, log func(string)) *Pool {
	return newPool(e, cfg, size, 0, log)
}

// newPool is NewPool with at most maxStarting starts at once (0: any).
func newPool(e *engine.Engine, cfg config.Config, size, maxStarting int, log func(string)) *Pool {
	if log == nil {
		log = func(string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{cfg: cfg, e: e, size: size, maxStarting: maxStarting, log: log, ctx: ctx, cancel: cancel}
	p.fill()
	return p
}

// Take hands a started sandbox to one session, or nil when none is ready
// (the session starts its own), and starts the next.
func (p *Pool) Take() *Pooled {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	var got *Pooled
	if len(p.ready) > 0 {
		got = p.ready[0]
		p.ready = p.ready[1:]
	}
	p.failing = false
	p.mu.Unlock()
	p.fill()
	return got
}

// Ready is how many started sandboxes wait.
func (p *Pool) Ready() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ready)
}

// fill starts sandboxes until ready and starting make the pool's size.
func (p *Pool) fill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.closed && !p.failing && len(p.ready)+p.starting < p.size && (p.maxStarting == 0 || p.starting < p.maxStarting) {
		p.starting++
		p.wg.Add(1)
		go p.startOne()
	}
}

func (p *Pool) startOne() {
	defer p.wg.Done()
	pd, err := p.start(p.ctx)
	p.mu.Lock()
	p.starting--
	if err == nil && !p.closed {
		p.ready = append(p.ready, pd)
		p.mu.Unlock()
		p.fill() // the next, when starts are capped
		return
	}
	closed := p.closed
	if err != nil && !closed {
		p.failing = true
	}
	p.mu.Unlock()
	if pd != nil {
		pd.remove()
	}
	if err != nil && !closed {
		p.log("warm pool: a sandbox did not start (" + err.Error() + "); sessions start their own until one is taken")
	}
}

func (p *Pool) start(ctx context.Context) (*Pooled, error) {
	d := image.Derived{Ref: p.cfg.Image}
	if d.Ref == "" {
		// A missing image is built by a session's start, where its
		// progress is told, not here.
		if ok, err := image.Present(ctx, p.e); err != nil || !ok {
			return nil, errors.New("the sandbox image is not built yet")
		}
		var err error
		if d, err = image.CurrentImage(ctx, p.e); err != nil {
			d = image.Derived{Ref: image.Ref()}
		}
	}
	pd := &Pooled{id: newID(), image: d, db: &lateDB{}}
	dir, err := filepath.Abs(filepath.Join(OutputParent(p.cfg), pd.id))
	if err != nil {
		return nil, err
	}
	pd.dir = dir
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	c := p.cfg
	pd.sb, err = sandbox.Start(ctx, p.e, sandbox.Options{Image: d.Ref, OutputDir: dir, Timeout: c.Timeout,
		Limits: sandbox.Limits{Memory: c.Memory, CPUs: c.CPUs}, SessionID: pd.id, DB: pd.db, Background: true})
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	// The libraries the kernel imports after ready, waited for here so a
	// first cell that uses pandas finds it; no cell of the session's, and
	// nothing harvested.
	if _, err := pd.sb.Replay(ctx, 0, poolWarmup); err != nil {
		return pd, err
	}
	return pd, nil
}

// poolWarmup names the libraries the kernel imports after ready, so the
// kernel waits for them.
const poolWarmup = "np, pd, plt"

// remove takes away a pooled sandbox no session took, and its empty folder.
func (pd *Pooled) remove() error {
	err := pd.sb.Close()
	os.Remove(pd.dir)
	return err
}

// Close stops the starts in progress and removes every sandbox no
// session took; the sessions' own go with their sessions.
func (p *Pool) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	left := p.ready
	p.ready = nil
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	var errs []error
	for _, pd := range left {
		errs = append(errs, pd.remove())
	}
	return errors.Join(errs...)
}
