package sandbox

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/kernel"
)

// exec runs one cell on the live kernel, replacing a dead kernel first. It
// never waits longer than the timeout plus the interrupt grace plus a
// restart; a cell that ignores SIGINT costs its kernel, not the session.
// harvest false is a replay: no figure or file reaches the host. num is the
// cell's number in the session, which names its code in tracebacks
// (<cell-3>); a harvested cell takes the next one.
func (s *Session) exec(ctx context.Context, num int, code string, onChunk func(kernel.Chunk), harvest bool) (kernel.Result, error) {
	var res kernel.Result
	start := time.Now()
	if err := s.ensureKernel(ctx, &res); err != nil {
		return res, err
	}
	s.ensureRelay(ctx)
	select { // an Interrupt() that arrived between cells is stale
	case <-s.intr:
	default:
	}
	k := s.getK()
	s.revivedSince(k, &res)
	s.seq++
	if harvest {
		s.cells++
		num = s.cells
	}
	id := s.seq
	k.want.Store(id)
	defer k.want.Store(0)
	req := map[string]any{"op": "exec", "id": id, "cell": num, "code": code, "quiet": !harvest}
	if b := s.figureBox(); b.W > 0 && b.H > 0 && b.FontPx > 0 {
		req["inline"] = b
	}
	if err := k.send(req); err != nil {
		return s.afterDeath(&res, start, "")
	}

	var out, errs outputBuf
	died := -1 // the status of a kernel the supervisor is bringing back
	clock := newOpClock(cellLimit(ctx, s.opts.Timeout))
	defer clock.stop()
	ctxDone := ctx.Done()
	var grace <-chan time.Time
	var why kernel.ErrorKind
	dbCtx, dbCancel := context.WithCancel(ctx) // sql(db=) calls of this cell
	defer dbCancel()
	interrupt := func(kind kernel.ErrorKind) {
		dbCancel()
		if grace != nil {
			return
		}
		why = kind
		k.send(map[string]any{"op": "interrupt", "id": id})
		grace = time.After(interruptGrace)
	}
	for {
		select {
		case f := <-k.frames:
			switch {
			case f.T == "died":
				died = f.Status
				continue
			case f.T == "revived":
				res.Stdout, res.Stderr = string(out.b), string(errs.b)
				return s.afterRevival(&res, start, why, died), nil
			case f.ID != id:
				continue // a stale frame of an earlier cell (a forged result leaves the real one queued)
			}
			switch f.T {
			case "running":
				clock.begin()
			case "progress": // cluster/client.py: tasks done of total on the Dask cluster
				if f.Total > 0 && f.Done >= 0 && f.Done <= f.Total && onChunk != nil {
					onChunk(kernel.Chunk{Stream: kernel.Progress, Text: fmt.Sprintf("%d of %d tasks done on the Dask cluster", f.Done, f.Total)})
				}
			case "db":
				go s.serveDB(dbCtx, k, f)
			case "kind":
				go serveKind(k, f)
			case "stream":
				buf, stream := &out, kernel.Stdout
				if f.Name == "stderr" {
					buf, stream = &errs, kernel.Stderr
				}
				if text, ok := buf.add(f.Text); ok && onChunk != nil && text != "" {
					onChunk(kernel.Chunk{Stream: stream, Text: text})
				}
			case "result":
				res.Stdout, res.Stderr = string(out.b), string(errs.b)
				res.Dropped = f.Dropped + out.dropped + errs.dropped
				s.lastKernelTime = time.Duration(f.Seconds * float64(time.Second))
				s.finishResult(&res, f, why, harvest)
				res.Duration = time.Since(start)
				return res, nil
			}
		case <-k.done:
			res.Stdout, res.Stderr = string(out.b), string(errs.b)
			return s.afterDeath(&res, start, why)
		case <-clock.timer.C:
			interrupt(kernel.ErrTimeout)
		case <-ctxDone:
			ctxDone = nil
			interrupt(kernel.ErrInterrupted)
		case <-s.intr:
			interrupt(kernel.ErrInterrupted)
		case <-grace:
			res.Stdout, res.Stderr = string(out.b), string(errs.b)
			return s.replaceStuckKernel(&res, start, why)
		}
	}
}

// finishResult turns the kernel's result frame into the Result and brings
// figures and changed files onto the host through the harvester (unless
// harvest is false).
func (s *Session) finishResult(res *kernel.Result, f frame, why kernel.ErrorKind, harvest bool) {
	res.Value = f.Value
	res.Notes = append(res.Notes, f.Notes...)
	res.Report = f.Report
	if f.Error != nil {
		e := &kernel.Error{Kind: kernel.ErrException, Type: f.Error.Type, Message: f.Error.Message, Traceback: f.Error.Traceback, Needs: f.Error.Needs}
		if f.Error.Type == "KeyboardInterrupt" && why != "" {
			e.Kind = why
			e.Traceback = ""
			if why == kernel.ErrTimeout {
				e.Message = fmt.Sprintf("the cell ran longer than the %s limit and was interrupted; the variables are kept", s.opts.Timeout)
			} else {
				e.Message = "the cell was interrupted; the variables are kept"
			}
		}
		res.Error = e
	}
	if !harvest {
		return
	}
	for i, png := range f.Figures {
		file, err := s.harvest.writeFile(fmt.Sprintf("figures/cell%d-%d.png", s.cells, i+1), png)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("figure %d not saved: %v", i+1, err))
			continue
		}
		if i < len(f.Inline) && len(f.Inline[i]) > 0 {
			// Shown, never saved: checked like every PNG from the sandbox.
			if _, _, err := kernel.CheckPNG(f.Inline[i]); err == nil {
				file.Inline = f.Inline[i]
			}
		}
		res.Figures = append(res.Figures, file)
		reportFigure(res.Report, i, file)
	}
	if len(f.Files) > 0 {
		files, notes, err := s.harvestOutput(f.Files)
		res.Files = files
		res.Notes = append(res.Notes, notes...)
		if err != nil {
			res.Notes = append(res.Notes, "output files: "+err.Error())
		}
	}
}

// harvestOutput copies /output over the API (so it works with a remote
// engine) and lets the harvester write only the files the kernel named.
func (s *Session) harvestOutput(names []string) ([]kernel.File, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	rc, err := s.e.Client().CopyFromContainer(ctx, s.cid, client.CopyFromContainerOptions{SourcePath: outputDir})
	if err != nil {
		return nil, nil, fmt.Errorf("copy from container: %w", err)
	}
	defer rc.Content.Close()
	return s.harvest.fromTar(rc.Content, want)
}

// ensureKernel replaces a kernel that died since the last request.
func (s *Session) ensureKernel(ctx context.Context, res *kernel.Result) error {
	if k := s.getK(); k != nil && !k.dead() {
		return nil
	}
	if s.closing.Load() {
		return ErrClosed
	}
	what := "the kernel had stopped"
	if s.getK() != nil {
		what = s.deathWords()
	}
	if err := s.restartKernel(ctx); err != nil {
		return s.engineError(fmt.Errorf("kernel restart: %w", err))
	}
	res.StateLost = true
	res.Notes = append(res.Notes, what+" since the last cell; a fresh kernel was started and earlier variables are gone")
	return nil
}

// afterDeath explains why the kernel died during a cell and starts a fresh
// one for the next cell.
func (s *Session) afterDeath(res *kernel.Result, start time.Time, why kernel.ErrorKind) (kernel.Result, error) {
	res.Duration = time.Since(start)
	if s.closing.Load() {
		return *res, ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	st, err := s.exitState(ctx)
	if err != nil {
		return *res, s.engineError(fmt.Errorf("kernel lost during the cell: %w", err))
	}
	res.StateLost = true
	if st != nil && !st.Running {
		res.Error = s.classifyExit(st.ExitCode, st.OOMKilled)
	} else {
		res.Error = &kernel.Error{Kind: kernel.ErrCrashed, Message: "the connection to the kernel broke; a fresh kernel was started and the variables are lost"}
	}
	if why == kernel.ErrTimeout && res.Error.Kind == kernel.ErrCrashed {
		res.Error.Kind = kernel.ErrTimeout
	}
	if err := s.restartKernel(ctx); err != nil {
		return *res, s.engineError(fmt.Errorf("kernel restart: %w", err))
	}
	return *res, nil
}

// exitState inspects the container after its stream ended. Podman may
// still say "running" for a moment after the process died (its state follows
// conmon's exit file), so a running answer is waited out briefly.
func (s *Session) exitState(ctx context.Context) (*container.State, error) {
	info, err := s.e.Client().ContainerInspect(ctx, s.cid, client.ContainerInspectOptions{})
	if err != nil || info.Container.State == nil || !info.Container.State.Running {
		return info.Container.State, err
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	wait := s.e.Client().ContainerWait(wctx, s.cid, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-wait.Result:
	case <-wait.Error:
	}
	info, err = s.e.Client().ContainerInspect(ctx, s.cid, client.ContainerInspectOptions{})
	return info.Container.State, err
}

// replaceStuckKernel handles a cell that did not answer an interrupt
// within the grace: the kernel is killed and replaced.
func (s *Session) replaceStuckKernel(res *kernel.Result, start time.Time, why kernel.ErrorKind) (kernel.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	msg := "the cell was interrupted but did not stop"
	if why == kernel.ErrTimeout {
		msg = fmt.Sprintf("the cell ran longer than the %s limit and did not stop when interrupted", s.opts.Timeout)
	}
	msg += " (it ignores KeyboardInterrupt or is stuck in native code)"
	if s.killToCheckpoint(ctx) {
		res.Rewound = true
		res.Error = &kernel.Error{Kind: why, Message: msg + rewound}
		res.Duration = time.Since(start)
		return *res, nil
	}
	res.StateLost = true
	res.Error = &kernel.Error{Kind: why, Message: msg + "; the kernel was restarted and the variables are lost"}
	if err := s.restartKernel(ctx); err != nil {
		res.Duration = time.Since(start)
		return *res, s.engineError(fmt.Errorf("kernel restart: %w", err))
	}
	res.Duration = time.Since(start)
	return *res, nil
}

// classifyExit names a kernel death by its exit status: the engine's
// OOMKilled flag is not set for every process the OOM killer picks.
func (s *Session) classifyExit(code int, oomKilled bool) *kernel.Error {
	return s.death(code, oomKilled, "; a fresh kernel was started and the variables are lost")
}

// death names a kernel death; then says what became of the state.
func (s *Session) death(code int, oomKilled bool, then string) *kernel.Error {
	switch {
	case oomKilled || code == 137:
		return &kernel.Error{Kind: kernel.ErrOutOfMemory,
			Message: fmt.Sprintf("out of memory: the cell needed more than the %s limit%s", kernel.FormatSize(s.lim.Memory), then)}
	case code == 139:
		return &kernel.Error{Kind: kernel.ErrCrashed, Message: "the kernel crashed with a segmentation fault" + then}
	case code == 134:
		return &kernel.Error{Kind: kernel.ErrCrashed, Message: "the kernel aborted (SIGABRT)" + then}
	case code > 128:
		return &kernel.Error{Kind: kernel.ErrCrashed, Message: fmt.Sprintf("the kernel was killed by signal %d%s", code-128, then)}
	default:
		return &kernel.Error{Kind: kernel.ErrCrashed, Message: fmt.Sprintf("the kernel exited with status %d (os._exit or a fatal error)%s", code, then)}
	}
}

// deathWords describes a kernel that died between requests.
func (s *Session) deathWords() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := s.exitState(ctx)
	if err != nil || st == nil || st.Running {
		return "the kernel connection had broken"
	}
	e := s.classifyExit(st.ExitCode, st.OOMKilled)
	msg, _, _ := strings.Cut(e.Message, ";")
	return "the kernel had died (" + msg + ")"
}

// engineError marks failures to reach the engine so front ends can say
// "Docker went away" rather than blame the code.
func (s *Session) engineError(err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, perr := s.e.Client().Ping(ctx, client.PingOptions{}); perr != nil {
		return fmt.Errorf("%w: the engine went away: %v", engine.ErrUnreachable, err)
	}
	return err
}

// exitSummary says how the container ended, for start errors.
func exitSummary(e *engine.Engine, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := e.Client().ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil || info.Container.State == nil {
		return "state unknown"
	}
	st := info.Container.State
	if st.Running {
		return "still running, stream closed"
	}
	s := fmt.Sprintf("exit status %d", st.ExitCode)
	if st.Error != "" {
		s += ", " + st.Error
	}
	return s
}

// isNotRunning: Docker says "is not running", Podman "container state
// improper" (stopped or exited).
func isNotRunning(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "is not running") || strings.Contains(msg, "container state improper") || engine.Gone(err)
}

// validPrefix cuts s to at most n bytes on a rune boundary.
func validPrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
