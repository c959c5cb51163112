package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
)

// Start-up: the engine, the image, the container, then the record and the
// index; front ends run it in the background while they open.

// Start connects to the engine, sweeps orphans of dead quarry processes,
// makes sure the image exists and starts the sandbox. Front ends call it in
// the background at launch; Attach and Ask wait for it. Calling it again
// waits for the first call's outcome. Close aborts a Start in progress.
func (s *Session) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	if s.started {
		s.mu.Unlock()
		return s.wait(ctx)
	}
	s.started = true
	if s.state == StateFailed { // bad model settings: no container for nothing
		s.startErr = s.err
		close(s.ready)
		s.mu.Unlock()
		return s.startErr
	}
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.mu.Unlock()
	s.setState(StateStarting, nil)

	err := s.start(ctx)
	cancel()
	err = s.maskErr(err)
	if err != nil {
		s.setState(StateFailed, err)
	} else {
		s.setState(StateReady, nil)
	}
	s.mu.Lock()
	s.startErr = err
	close(s.ready)
	s.mu.Unlock()
	if err == nil && s.opts.ReportAhead != nil && s.opts.ReportAhead.AtStart {
		s.keepAhead()
	}
	return err
}

var errClosed = errors.New("session closed")

func (s *Session) start(ctx context.Context) error {
	if pd := s.opts.Pooled; pd != nil && pd.sb != nil {
		return s.adopt(pd)
	}
	if s.opts.Engine != nil {
		s.engine = s.opts.Engine
	} else {
		s.progress("connecting to the container engine")
		e, err := engine.Connect(ctx)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.engine, s.ownEngine = e, true
		s.mu.Unlock()
	}
	sandbox.SweepAndTell(ctx, s.engine, s.progress)
	// The sandbox creates the output folder itself and wants it new or
	// empty (it never overwrites what it did not write), so only the
	// parent is made here and the record comes after; a resumed session
	// tells it which files of the folder are its own.
	if err := os.MkdirAll(filepath.Dir(s.outDir), 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if pd := s.opts.Pooled; pd != nil && pd.warm != nil {
		if sb, ok := s.adoptWarm(ctx, pd.warm); ok {
			return s.running(ctx, sb)
		}
	}
	if s.opts.Config.Image == "" { // a custom image is the user's to build
		if err := image.Ensure(ctx, s.engine, &progressLines{s: s}); err != nil {
			return fmt.Errorf("sandbox image: %w", err)
		}
	}
	s.progress("starting the sandbox")
	var earlier *sandbox.Earlier
	if s.opts.Resume != nil {
		earlier = s.opts.Resume.earlier()
	}
	sb, err := sandbox.Start(ctx, s.engine, s.sandboxOptions(s.chooseImage(ctx), earlier))
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if fix, ok := engine.KnownFix(err); ok {
			return fmt.Errorf("%w. To fix: %s", err, fix)
		}
		return err
	}
	return s.running(ctx, sb)
}

// adopt takes a sandbox the pool started ahead (pool.go) as the
// session's: the same steps from there on as for one it started.
func (s *Session) adopt(pd *Pooled) error {
	s.mu.Lock()
	s.engine = s.opts.Engine
	s.image = pd.image
	s.mu.Unlock()
	pd.db.db.Store(&sourceDB{set: s.opts.Sources, maxRows: s.opts.Config.DBMaxRows, maxBytes: s.opts.Config.DBMaxBytes})
	pd.sb.Foreground(context.Background())
	return s.running(context.Background(), pd.sb)
}

// adoptWarm takes the sandbox a holder handed out (warm.go); a run
// whose image it is not, or that cannot attach to it, removes it and
// starts its own under the same id.
func (s *Session) adoptWarm(ctx context.Context, w *Warm) (*sandbox.Session, bool) {
	ref := s.chooseImage(ctx)
	err := fmt.Errorf("warm pool: the sandbox is of image %s, this run's is %s", w.h.Image, ref)
	if ref == w.h.Image {
		s.progress("taking a warm sandbox")
		var sb *sandbox.Session
		if sb, err = w.adopt(ctx, s.engine, s.sandboxOptions(ref, nil)); err == nil {
			return sb, true
		}
	} else {
		w.Stale()
	}
	s.emit(agent.Event{Kind: agent.EventWarning, Text: s.mask.Mask(err.Error()) + "; starting a sandbox"})
	sandbox.Discard(ctx, s.engine, w.h)
	w.Close()
	return nil, false
}

// running makes sb the session's sandbox and opens the record.
func (s *Session) running(ctx context.Context, sb *sandbox.Session) error {
	s.mu.Lock()
	s.sb = sb
	sb.SetFigureBox(s.box)
	s.mu.Unlock()
	if err := s.openRecord(); err != nil {
		return err
	}
	s.profileSources(ctx)
	s.joinCluster(ctx, sb)
	s.tellLibraries(ctx)
	go s.watchSandbox()
	if note := sb.RuntimeNote(); note != "" {
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "sandbox: " + note})
	}
	for _, w := range sb.Warnings() {
		s.emit(agent.Event{Kind: agent.EventWarning, Text: "sandbox limits: " + w})
	}
	return nil
}

// sandboxOptions are the options of the session's sandbox on image ref,
// continuing what earlier harvested (nil: a new folder).
func (s *Session) sandboxOptions(ref string, earlier *sandbox.Earlier) sandbox.Options {
	c := s.opts.Config
	opts := sandbox.Options{
		Image:     ref,
		OutputDir: s.outDir,
		Timeout:   c.Timeout,
		Limits:    sandbox.Limits{Memory: c.Memory, CPUs: c.CPUs},
		SessionID: s.id,
		Earlier:   earlier,
	}
	// Without sources too: the set's answer to an unknown name says which
	// kinds of database --db connects.
	opts.DB = sourceDB{set: s.opts.Sources, maxRows: c.DBMaxRows, maxBytes: c.DBMaxBytes}
	return opts
}

// openRecord starts the session's record, or continues a resumed one, and
// puts the session in the index.
func (s *Session) openRecord() error {
	path := filepath.Join(s.outDir, RecordName)
	var rec *recorder
	var err error
	if s.opts.Resume != nil {
		if s.opts.Resume.Version < RecordVersion {
			// An older quarry's folder: the record starts beside its transcript.
			rec, err = createRecord(path, s.mask)
			if err == nil {
				rec.header(s.id, s.modelName(), s.opts.Resume.Source, s.settings())
				for _, e := range s.opts.Resume.Entries {
					if e.Cell != nil {
						c := *e.Cell
						c.Result.Figures, c.Result.Files = relativeFiles(c.Result.Figures), relativeFiles(c.Result.Files)
						e.Cell = &c
					}
					rec.add(e)
				}
			}
		} else {
			rec, err = appendRecord(path, s.mask)
		}
		if err == nil {
			st := s.settings()
			rec.add(Entry{Kind: EntryResume, Model: s.modelName(), Settings: &st})
		}
	} else {
		rec, err = createRecord(path, s.mask)
		if err == nil {
			rec.header(s.id, s.modelName(), s.opts.Rerun, s.settings())
		}
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.rec = rec
	s.startedAt = time.Now()
	s.mu.Unlock()
	index := s.index()
	started := s.startedAt
	if s.opts.Resume != nil {
		started = s.opts.Resume.Started
	}
	if err := register(index, s.id, s.outDir, started); err != nil {
		msg := "this session is not listed by quarry sessions: " + err.Error()
		rec.add(Entry{Kind: EntryWarning, Text: s.mask.MaskError(msg)})
		s.progress("warning: " + msg)
	}
	return nil
}

// forget removes a session that did nothing from the index, and its
// record from its folder.
func (s *Session) forget() {
	os.Remove(filepath.Join(s.outDir, RecordName))
	os.Remove(filepath.Join(s.index(), s.id+".json"))
}

func (s *Session) index() string {
	if s.opts.Index != "" {
		return s.opts.Index
	}
	return DefaultIndex()
}

// settings are the record's copy of the settings that shape a run.
func (s *Session) settings() Settings {
	c := s.opts.Config
	st := Settings{ToolMode: c.ToolMode, MaxSteps: c.MaxSteps, Timeout: c.Timeout, Memory: c.Memory, CPUs: c.CPUs, Image: c.Image, Build: s.opts.Build, Thousands: c.Thousands,
		Extras: recordedExtras(s.image)}
	if c.BaseURL != "" {
		st.Endpoint = c.Endpoint()
	}
	for _, src := range s.Sources() {
		st.Sources = append(st.Sources, RecordedSource{Name: src.Name, Where: s.mask.Mask(src.Where), Kind: src.Kind})
	}
	if s.opts.Cluster != nil {
		st.Dask = s.mask.Mask(s.opts.Cluster.Name())
	}
	return st
}
