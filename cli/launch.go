package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/demo"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/session"
)

// The one launch path of the chat and the headless mode, in order:
//
//  1. the configuration is loaded (flags, environment, file);
//  2. the inputs are checked: files, the output folder, and the front
//     end's own (the prompt, data piped in), before anything is probed;
//  3. the configuration is resolved (the key, the Ollama probe);
//  4. the session is made, its events going to the front end;
//  5. the front end runs under the panic guard, which removes the sandbox
//     whatever happens.
//
// Steps 1 to 4 fail with an inputError (exit 2), or interrupted (130) when
// the user gave up meanwhile.

// launchOptions are what a front end adds to the shared path.
type launchOptions struct {
	// inputs checks the front end's own inputs after the files and
	// returns more files to attach (the headless mode's piped data).
	inputs func(ctx context.Context) ([]string, error)
	// events receives the session's events (start-up progress, state).
	events func(agent.Event)
	// agent adjusts the agent configuration (the chat's confirm hook).
	agent func(*agent.Config)
	// install asks whether to add the packages a cell lacks (the chat's
	// prompt); --allow-install answers yes without asking.
	install func(ctx context.Context, question string) (bool, error)
	// askChanged lets the front end ask about a resumed session's inputs
	// that changed or vanished (the chat); without it they are bad input
	// unless --map names their files.
	askChanged bool
	build      string
	// scripted: agent sets a Script that plays the model (quarry demo), so
	// no key is read or command run and no endpoint is resolved or probed.
	scripted bool
	// reports keeps a report builder's sandbox started ahead (the chat's
	// /report, -p --report); nil: no report is expected.
	reports *session.ReportAhead
	// warm: the run may take a sandbox a holder keeps started (-p).
	warm bool
}

// launched is a session ready for its front end.
type launched struct {
	cfg    config.Config
	notice string // from resolving the configuration (e.g. "using Ollama")
	files  []string
	sess   *session.Session
	mask   *secret.Masker
	// A resumed session: its record, the host file of each input that
	// --map moved, and the inputs still changed or gone (the chat asks).
	resumed *session.Record
	inputs  map[string]string
	changed []session.InputCheck
}

func launch(ctx context.Context, f *rootFlags, o launchOptions) (*launched, error) {
	var rs *resumption
	if f.resume != "" {
		var err error
		if rs, err = findResumption(f, o.askChanged); err != nil {
			return nil, inputError{err}
		}
		// The session's model, unless --model says otherwise; the demo's
		// scripted one is no server's, so a resumed demo takes the configured.
		if f.overrides.Model == "" && rs.rec.Model != demo.Model {
			f.overrides.Model = rs.rec.Model
		}
	}
	load := config.Load
	if o.scripted {
		load = config.Merge
	}
	cfg, err := load(f.overrides)
	if err != nil {
		return nil, inputError{err}
	}
	mask := cfg.Masker()
	if o.scripted {
		cfg.APIKey = "" // never near a session without a model server
	}
	files := append([]string(nil), f.files...)
	if err := checkInputs(files, f.overrides, cfg); err != nil {
		return nil, inputError{err}
	}
	if o.inputs != nil {
		more, err := o.inputs(ctx)
		if ctx.Err() != nil {
			return nil, interrupted{"interrupted"}
		}
		var re runError
		if errors.As(err, &re) {
			return nil, err
		}
		if err != nil {
			return nil, inputError{err}
		}
		if len(more) > 0 {
			files = append(files, more...)
			if err := session.CheckFiles(files); err != nil {
				return nil, inputError{err}
			}
		}
	}
	notice := ""
	if !o.scripted {
		cfg, notice, err = config.Resolve(ctx, cfg)
		mask = cfg.Masker() // the key is known now
	}
	if ctx.Err() != nil {
		return nil, interrupted{"interrupted"}
	}
	if err != nil {
		return nil, inputError{maskedErr(mask, err)}
	}
	sources, err := openSources(ctx, cfg)
	if ctx.Err() != nil {
		return nil, interrupted{"interrupted"}
	}
	if err != nil {
		return nil, inputError{err}
	}
	cluster, err := openCluster(cfg)
	if err != nil {
		return nil, inputError{err}
	}
	so := session.Options{
		Sources:   sources,
		Cluster:   cluster,
		Config:    cfg,
		OutputDir: f.overrides.OutputDir,
		Events:    o.events,
		Agent:     o.agent,
		Build:     o.build,
		Install:   o.install,

		ReportAhead: o.reports,
	}
	if f.allowInstall {
		so.Install = func(context.Context, string) (bool, error) { return true, nil }
	}
	l := &launched{cfg: cfg, notice: notice, files: files, mask: mask}
	if rs != nil {
		so.Resume = rs.rec
		l.resumed, l.inputs, l.changed = rs.rec, rs.inputs, rs.changed
	}
	if o.warm && rs == nil && cluster == nil {
		so.Pooled = takeWarm(ctx, cfg, f.warm, o.events)
	}
	s := session.New(so)
	if err := s.Err(); err != nil {
		s.Close() // closes the sources too
		return nil, inputError{fmt.Errorf("%s\nCheck the model settings: quarry config shows them.", mask.MaskError(err.Error()))}
	}
	l.sess = s
	return l, nil
}

// checkInputs checks the files and the output folder before any probe or
// container.
func checkInputs(files []string, o config.Overrides, cfg config.Config) error {
	if err := session.CheckFiles(files); err != nil {
		return err
	}
	if o.OutputDir != "" {
		return session.CheckOutputDir(o.OutputDir)
	}
	if cfg.OutputDir != "" {
		return session.CheckOutputParent(cfg.OutputDir, cfg.Source("output_dir"))
	}
	return nil
}

// guard is deferred by both front ends around their run: a panic becomes
// one sanitized, masked line and exit 1, never a Go trace with the status
// of bad input; then remove takes the sandbox away, whatever ended the run.
func (l *launched) guard(err *error, stderr io.Writer, remove func()) {
	if r := recover(); r != nil {
		fmt.Fprintf(stderr, "quarry: internal error (please report it with the command you ran): %s\n", panicText(l.mask, r))
		*err = silent{code: exitFailed}
	}
	remove()
}

// panicText is a panic's value made safe to print: it may carry model or
// sandbox text, or the key.
func panicText(m *secret.Masker, r any) string {
	return render.SanitizeLine(m.MaskError(fmt.Sprint(r)))
}

// maskedErr keeps err's message from showing a secret.
func maskedErr(m *secret.Masker, err error) error {
	if msg := m.MaskError(err.Error()); msg != err.Error() {
		return fmt.Errorf("%s", strings.TrimSpace(msg))
	}
	return err
}
