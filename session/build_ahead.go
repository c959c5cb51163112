package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// A report builder's sandbox started ahead of the report, so /report,
// -p --report and export wait for no sandbox's start (about a second, and
// as much for its imports). It is the sandbox Build would start: fresh,
// no model code runs in it, handed to one build only and removed after it.

// ReportAhead asks a session to keep a builder's sandbox started ahead.
type ReportAhead struct {
	// Warmup is the code the sandbox runs once started, before any report
	// is asked for: the builder's imports (export.Warmup).
	Warmup string
	// AtStart starts the first as soon as the session's sandbox is ready
	// (-p --report: the report follows the one answer). Otherwise the
	// first answer starts it (the chat: no report before a question), and
	// each answer after a build the next.
	AtStart bool
}

// aheadBuild is one builder's sandbox on its way up, or ready. Its output
// folder is work/out, made beside the report's own folder, so a build
// only renames it to the out it is given.
type aheadBuild struct {
	ready  chan struct{} // closed when the start has ended, either way
	cancel context.CancelFunc
	mu     sync.Mutex
	taken  bool // a build has it: the build removes it
	gone   bool // removed unused
	sb     *sandbox.Session
	e      *engine.Engine // the ahead's own connection, closed after the sandbox; nil when shared
	work   string
	err    error
}

// startAhead starts a builder's sandbox in the background, in a folder
// inside dir; track ends it unused when its owner closes.
func startAhead(c config.Config, e *engine.Engine, dir, warmup string, track *builds) *aheadBuild {
	ctx, done, err := track.start(context.Background())
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &aheadBuild{ready: make(chan struct{}), cancel: cancel}
	go func() {
		defer done()
		a.err = a.start(ctx, c, e, dir, warmup)
		close(a.ready)
		<-ctx.Done() // the owner closed, or the build that took it is over
		a.mu.Lock()
		a.gone = true
		a.mu.Unlock()
		a.remove()
	}()
	return a
}

func (a *aheadBuild) start(ctx context.Context, c config.Config, e *engine.Engine, dir, warmup string) error {
	if e == nil {
		var err error
		if e, err = sandbox.Connect(ctx, func(string) {}); err != nil {
			return err
		}
		a.e = e
	}
	if c.Image == "" {
		// A missing image is built by the build itself, where its
		// progress is shown, not silently here.
		if ok, err := image.Present(ctx, e); err != nil || !ok {
			return errors.New("sandbox image: not built yet")
		}
	}
	work, err := os.MkdirTemp(dir, ".report-ahead-")
	if err != nil {
		return fmt.Errorf("report builder: %w", err)
	}
	a.work = work
	a.sb, err = sandbox.Start(ctx, e, builderOptions(c, filepath.Join(work, "out")))
	if err != nil {
		return err
	}
	if warmup == "" {
		return nil
	}
	res, err := a.sb.Replay(ctx, 0, warmup) // nothing to harvest; not a cell of the build's
	if err == nil && res.Error != nil {
		err = fmt.Errorf("report builder warm-up: %s", res.Error.Message)
	}
	return err
}

// take gives the started sandbox to one build, after waiting for its
// start; false when it failed, was removed, or another build has it:
// the build then starts its own.
func (a *aheadBuild) take(ctx context.Context) (*sandbox.Session, bool, error) {
	select {
	case <-a.ready:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil || a.taken || a.gone {
		return nil, false, nil
	}
	a.taken = true
	return a.sb, true, nil
}

// remove takes the sandbox, its engine connection and its folder away.
func (a *aheadBuild) remove() error {
	var errs []error
	if a.sb != nil {
		errs = append(errs, a.sb.Close())
	}
	if a.e != nil {
		errs = append(errs, a.e.Close())
	}
	if a.work != "" {
		errs = append(errs, os.RemoveAll(a.work))
	}
	return errors.Join(errs...)
}

// buildIn runs the build in the ahead's sandbox and moves what it
// harvested to out; the sandbox is removed in the background, where its
// owner's Close waits for it.
func (a *aheadBuild) buildIn(ctx context.Context, files map[string]string, code, out string) (kernel.Result, error) {
	defer a.cancel()
	res, err := copyAndRun(ctx, a.sb, files, code)
	if err == nil {
		err = moveFolder(filepath.Join(a.work, "out"), out)
	}
	return res, err
}

// moveFolder moves a harvested folder to to, which must not exist: a
// rename on one file system, else a copy.
func moveFolder(from, to string) error {
	if err := os.Rename(from, to); err == nil {
		return nil
	}
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		return fmt.Errorf("report builder: %w", err)
	}
	return nil
}

// Ahead returns b with a builder's sandbox started now, in the
// background, for its next Build (its folder inside dir, where the
// report's own folder is made: the session folder); stop removes it when
// no build took it. quarry export calls it as it begins.
func (b Builder) Ahead(dir, warmup string) (Builder, func()) {
	track := b.track
	own := track == nil
	if own {
		track = &builds{}
	}
	a := startAhead(b.Config, b.Engine, dir, warmup, track)
	var once sync.Once
	b.ahead = func() *aheadBuild {
		var got *aheadBuild
		once.Do(func() { got = a })
		return got
	}
	return b, func() {
		if own {
			track.stop()
		}
	}
}

// takeAhead hands the session's builder sandbox started ahead, if any, to
// one build.
func (s *Session) takeAhead() *aheadBuild {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.prebuilt
	s.prebuilt = nil
	return a
}

// keepAhead starts a builder's sandbox ahead when the session asks for
// one (Options.ReportAhead) and none is waiting; the session's engine and
// folder serve it, and Close removes it unused.
func (s *Session) keepAhead() {
	r := s.opts.ReportAhead
	if r == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.prebuilt != nil || s.engine == nil || s.sb == nil {
		return
	}
	s.prebuilt = startAhead(s.opts.Config, s.engine, s.outDir, r.Warmup, &s.builds)
}
