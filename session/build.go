package session

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// A Builder runs quarry's own code, the report builder, in a sandbox of
// its own: a fresh container no model code ran in, with only the files it
// is given, harvested into a folder of its own and removed at once. It is
// the export package's Builder; it knows nothing of reports.
type Builder struct {
	Config config.Config
	// Engine is the engine to use; nil connects for each build.
	Engine *engine.Engine
	// Progress hears the image being built, when it is missing.
	Progress io.Writer
	track    *builds            // the session's, which stops the build when it closes
	ahead    func() *aheadBuild // a sandbox started ahead for this build, or nil (build_ahead.go)
}

// builds are the reports being built on a session's engine: Close cancels
// them and waits for their sandboxes to go, so none outlives the session
// or the engine it closes.
type builds struct {
	mu      sync.Mutex
	wg      sync.WaitGroup
	cancels map[int]context.CancelFunc
	next    int
	closed  bool
}

// start registers a build; its context ends when the session closes.
func (b *builds) start(ctx context.Context) (context.Context, func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, errClosed
	}
	if b.cancels == nil {
		b.cancels = map[int]context.CancelFunc{}
	}
	ctx, cancel := context.WithCancel(ctx)
	id := b.next
	b.next++
	b.cancels[id] = cancel
	b.wg.Add(1)
	return ctx, func() {
		b.mu.Lock()
		delete(b.cancels, id)
		b.mu.Unlock()
		cancel()
		b.wg.Done()
	}, nil
}

func (b *builds) stop() {
	b.mu.Lock()
	b.closed = true
	for _, c := range b.cancels {
		c()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// buildTimeout is a build's time limit at least: a million rows take
// minutes, whatever the cells' limit.
const buildTimeout = 15 * time.Minute

// Builder is a Builder on the session's engine and configuration; the
// session's sandbox is not used.
func (s *Session) Builder() Builder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Builder{Config: s.opts.Config, Engine: s.engine, track: &s.builds, ahead: s.takeAhead}
}

// Build copies files (name under /data → host path) into a fresh sandbox,
// runs code there as one cell and harvests what it writes into out, a
// folder that must not exist yet. A failed cell is the Result's Error.
func (b Builder) Build(ctx context.Context, files map[string]string, code, out string) (kernel.Result, error) {
	if b.track != nil {
		var done func()
		var err error
		if ctx, done, err = b.track.start(ctx); err != nil {
			return kernel.Result{}, err
		}
		defer done()
	}
	if b.ahead != nil {
		if a := b.ahead(); a != nil {
			_, ok, err := a.take(ctx)
			if err != nil {
				return kernel.Result{}, err
			}
			if ok {
				return a.buildIn(ctx, files, code, out)
			}
		}
	}
	e := b.Engine
	if e == nil {
		var err error
		if e, err = sandbox.Connect(ctx, b.say); err != nil {
			return kernel.Result{}, err
		}
		defer e.Close()
	}
	c := b.Config
	if c.Image == "" {
		w := b.Progress
		if w == nil {
			w = io.Discard
		}
		if err := image.Ensure(ctx, e, w); err != nil {
			return kernel.Result{}, fmt.Errorf("sandbox image: %w", err)
		}
	}
	sb, err := sandbox.Start(ctx, e, builderOptions(c, out))
	if err != nil {
		if fix, ok := engine.KnownFix(err); ok {
			return kernel.Result{}, fmt.Errorf("%w. To fix: %s", err, fix)
		}
		return kernel.Result{}, err
	}
	defer sb.Close()
	return copyAndRun(ctx, sb, files, code)
}

// builderOptions are a builder's sandbox's: the cells' limits, but a
// build's time limit at least.
func builderOptions(c config.Config, out string) sandbox.Options {
	return sandbox.Options{Image: c.Image, OutputDir: out, Timeout: max(c.Timeout, buildTimeout),
		Limits: sandbox.Limits{Memory: c.Memory, CPUs: c.CPUs}}
}

// copyAndRun copies the files into /data, in the order of their names,
// and runs code as one cell.
func copyAndRun(ctx context.Context, sb *sandbox.Session, files map[string]string, code string) (kernel.Result, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := sb.CopyFile(ctx, files[n], n); err != nil {
			return kernel.Result{}, err
		}
	}
	return sb.Exec(ctx, code, nil)
}

// say writes a line of the build's own to Progress, when there is one.
func (b Builder) say(line string) {
	if b.Progress != nil {
		fmt.Fprintln(b.Progress, line)
	}
}
