package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/demo"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/headless"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// forceExitAfter bounds the clean-up after an interrupt: a hung engine must
// not keep the user waiting.
const forceExitAfter = 30 * time.Second

// runHeadless is `quarry --prompt`. SIGINT and SIGTERM cancel the run (the
// cell is interrupted, the container removed, exit 130); a second signal
// exits at once and leaves the container to the next run's orphan sweep.
func (a *app) runHeadless(ctx context.Context, f *rootFlags) error {
	// A reader of stdout or stderr that went away (quarry -p ... | true)
	// must cost a failed write, not Go's default death by SIGPIPE, which
	// would skip removing the container.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		cancel()
		select {
		case <-sigs:
		case <-time.After(forceExitAfter):
		}
		fmt.Fprintln(a.stderr, "quarry: exiting now; the next quarry run removes a leftover container")
		os.Exit(exitInterrupted)
	}()
	return a.headlessRun(ctx, f, nil)
}

// headlessRun is the headless mode after the signals are set up; agentHook
// adjusts the agent (tests).
func (a *app) headlessRun(ctx context.Context, f *rootFlags, agentHook func(*agent.Config)) (err error) {
	r := headless.New(headless.Options{JSON: f.jsonOut, Quiet: f.quiet, Verbose: f.verbose, Stdout: a.stdout, Stderr: a.stderr})
	defer r.Stop()
	var prompt, tmp string
	defer func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	opts := launchOptions{
		inputs: func(ctx context.Context) ([]string, error) {
			given := strings.TrimSpace(f.prompt)
			p, err := headless.Prompt(ctx, given, a.stdin)
			if err != nil {
				return nil, err
			}
			prompt = p
			if given == "-" {
				return nil, nil // standard input was the prompt
			}
			if tmp, err = os.MkdirTemp("", "quarry-stdin-"); err != nil {
				return nil, runError{fmt.Errorf("standard input: %v", err)}
			}
			path, err := r.PipedData(ctx, a.stdin, tmp)
			if path == "" || err != nil {
				return nil, err
			}
			return []string{path}, nil
		},
		events: r.Event,
		agent:  agentHook,
		build:  a.build.Version,
		warm:   true,
	}
	if builtReport(f.reports) {
		opts.reports = &session.ReportAhead{Warmup: export.Warmup(), AtStart: true}
	}
	if f.demo != nil {
		// The question is the demo's: standard input is neither prompt nor data.
		prompt, opts.inputs = f.prompt, nil
		f.demo.launchOptions(&opts)
		r.Note(demo.Label)
	}
	l, err := launch(ctx, f, opts)
	if err != nil {
		r.Stop()
		return err
	}
	if l.notice != "" {
		r.Note(l.notice)
	}
	for _, m := range f.missing {
		r.Note("warning: " + m)
	}
	defer l.guard(&err, a.stderr, func() {
		if cerr := l.sess.Close(); cerr != nil {
			fmt.Fprintf(a.stderr, "quarry: warning: %s\n", render.SanitizeLine(l.mask.Mask(cerr.Error())))
		}
	})
	q := headless.Question{Prompt: prompt, Files: l.files, Theme: l.cfg.Theme, Resume: l.resumed != nil, Inputs: l.inputs,
		Strict: l.cfg.Verify == config.VerifyStrict, Notebook: f.notebook}
	if len(f.reports) > 0 {
		q.Report = func(ctx context.Context) ([]string, error) {
			// A resumed session's folder may hold an earlier report: free names.
			o := export.ReportOptions{Formats: f.reports, Paths: map[export.Format]string{}}
			if _, err := reportTargets(l.sess.OutputDir(), &o); err != nil {
				return nil, err
			}
			return writeReport(ctx, l.sess.OutputDir(), l.sess.Builder(), o)
		}
	}
	if f.demo != nil {
		q.Files = f.demo.opened(l.sess)
		// Started here so the files are in the folder before Run attaches
		// them; a start that fails is reported by Run, which waits for it.
		if l.sess.Start(ctx) == nil {
			if err := f.demo.ready(l.sess); err != nil {
				return err
			}
		}
	}
	if err := r.Run(ctx, l.sess, q); err != nil {
		if ctx.Err() != nil {
			return interrupted{err.Error()}
		}
		var refused *session.RefusedError
		if errors.As(err, &refused) { // a notebook the kernel's rules refuse: bad input
			return inputError{errors.New(l.mask.MaskError(err.Error()))}
		}
		return errors.New(l.mask.MaskError(err.Error()))
	}
	return nil
}
