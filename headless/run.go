package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// Options say how a headless run reports.
type Options struct {
	JSON    bool // one JSON document on Stdout instead of Markdown
	Quiet   bool // no progress on Stderr
	Verbose bool // the model's thinking on Stderr too (never on Stdout)
	Stdout  io.Writer
	Stderr  io.Writer
	// Getenv reads the environment for terminal styling; nil means os.Getenv.
	Getenv func(string) string
}

// Runner is one headless run: its progress printer exists before the
// session does (the session's start-up events go to Event), then Run drives
// the session.
type Runner struct {
	o    Options
	prog *progress
}

// Question is what Run asks, with the inputs the caller checked.
type Question struct {
	Prompt string   // the question, already read
	Files  []string // host files to attach
	Theme  string   // the theme setting (light, dark, auto) for Markdown on a terminal
	// Strict fails the run when numbers of the answer are in no cell's
	// output (verify = strict); the answer is printed first.
	Strict bool
	// Resume continues the session's recorded conversation first (Restore);
	// Inputs then names the host file for each of its inputs that moved.
	Resume bool
	Inputs map[string]string
	// Notebook is a notebook to continue: its cells run before the prompt.
	Notebook *session.NotebookRun
	// Report, when set, writes the session's report once the answer is in
	// and returns its files; the answer is printed whatever it returns.
	Report func(ctx context.Context) ([]string, error)
}

// New prepares a run; call Stop when done (Run stops it too).
func New(o Options) *Runner {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	p := newProgress(o.Stderr, o.Quiet, isTerminal(o.Stderr))
	p.verbose, p.dim = o.Verbose, p.animate && o.Getenv("NO_COLOR") == ""
	return &Runner{o: o, prog: p}
}

// Event shows one session or agent event as progress; it is the
// session's Options.Events.
func (r *Runner) Event(e agent.Event) { r.prog.Event(e) }

// Phase shows a step of the caller's own (reading standard input).
func (r *Runner) Phase(text string) { r.prog.Phase(render.SanitizeLine(text)) }

// Note prints a line that stays (the configuration's notice).
func (r *Runner) Note(text string) { r.prog.Note(render.SanitizeLine(text)) }

// Stop ends the progress display; safe twice.
func (r *Runner) Stop() { r.prog.Stop() }

// Run starts the session, attaches the files, asks the prompt and prints
// the answer. Its error is the message for the user; when ctx was
// cancelled (SIGINT, SIGTERM) it says what was kept. The caller removes the
// container.
func (r *Runner) Run(ctx context.Context, s *session.Session, q Question) error {
	defer r.prog.Stop()
	interrupted := func() error {
		r.prog.Stop()
		if entries, err := os.ReadDir(s.OutputDir()); err == nil && len(entries) > 0 {
			return fmt.Errorf("interrupted; partial results are in %s", s.OutputDir())
		}
		return errors.New("interrupted")
	}
	if err := s.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return fmt.Errorf("the sandbox could not start: %s", render.Sanitize(err.Error()))
	}
	if q.Resume {
		err := s.Restore(ctx, q.Inputs)
		var re *session.ReplayError
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case errors.As(err, &re):
			// The model is told which variables are missing; the question goes on.
			r.prog.Note("warning: " + render.SanitizeLine(re.Error()))
		case err != nil:
			return fmt.Errorf("resuming session %s: %s", s.ID(), render.Sanitize(err.Error()))
		}
	}
	if q.Notebook != nil {
		err := s.ContinueNotebook(ctx, *q.Notebook)
		var ne *session.NotebookError
		var refused *session.RefusedError
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case errors.As(err, &ne):
			r.prog.Note("warning: " + render.SanitizeLine(ne.Error()))
		case errors.As(err, &refused):
			return fmt.Errorf("running the notebook %s: %w", render.SanitizeLine(q.Notebook.Name), refused) // bad input: the kernel's rules, before any cell ran
		case err != nil:
			return fmt.Errorf("running the notebook %s: %s", render.SanitizeLine(q.Notebook.Name), render.Sanitize(err.Error()))
		}
	}
	for _, f := range q.Files {
		r.prog.Phase("attaching " + render.SanitizeLine(filepath.Base(f)))
		if _, err := s.Attach(ctx, f); err != nil {
			if ctx.Err() != nil {
				return interrupted()
			}
			return errors.New(render.Sanitize(err.Error()))
		}
	}

	col := newCollector()
	r.prog.Phase("asking " + render.SanitizeLine(s.Model()))
	answer, err := s.Ask(ctx, q.Prompt, func(e agent.Event) {
		col.Event(e)
		if ctx.Err() != nil && (e.Kind == agent.EventWarning || e.Kind == agent.EventError) {
			return // "cancelled": the interrupt message says it better
		}
		r.prog.Event(e)
	})
	if err == nil && ctx.Err() == nil {
		r.prog.Summary(col)
	}
	r.prog.Stop()
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return fmt.Errorf("%s\nThe files written so far are in %s.", runFailure(err, s.Endpoint()), s.OutputDir())
	}

	res := col.Finish(answer, s.Model(), s.ID(), s.OutputDir())
	var reportErr error
	if q.Report != nil {
		if !r.o.Quiet {
			fmt.Fprintln(r.o.Stderr, "quarry: writing the report")
		}
		res.Report, reportErr = q.Report(ctx)
		if ctx.Err() != nil {
			return interrupted()
		}
	}
	if r.o.JSON {
		err = writeJSON(r.o.Stdout, res)
	} else {
		err = writeMarkdown(r.o.Stdout, res, markdownStyle(r.o, q.Theme))
	}
	if err != nil {
		return fmt.Errorf("writing the answer: %v", err)
	}
	if line := unverifiedLine(res); line != "" && !r.o.JSON {
		fmt.Fprintln(r.o.Stderr, "quarry: "+line)
	}
	if len(res.Report) > 0 && !r.o.JSON && !r.o.Quiet {
		fmt.Fprintln(r.o.Stderr, "quarry: report written: "+render.SanitizeLine(strings.Join(res.Report, ", ")))
	}
	if reportErr != nil {
		return fmt.Errorf("the report could not be written: %s", render.Sanitize(reportErr.Error()))
	}
	if q.Strict && res.Unverified > 0 {
		return fmt.Errorf("verify strict: %d of the answer's numbers are in no cell's output; compute them in a cell, or run with --verify mark", res.Unverified)
	}
	return nil
}

// runFailure words a failed turn with what to do about it, for its cause;
// endpoint is the model server's address, credentials hidden.
func runFailure(err error, endpoint string) string {
	msg := render.Sanitize(err.Error())
	if errors.Is(err, context.DeadlineExceeded) {
		return "the run took too long: " + msg
	}
	where := ""
	if endpoint != "" && !strings.Contains(msg, endpoint) {
		where = " at " + render.SanitizeLine(endpoint)
	}
	hint := fmt.Sprintf("Check that the model server%s is reachable and the key is valid, or choose another with --base-url / --model.", where)
	var ae *agent.Error
	if errors.As(err, &ae) {
		switch ae.Kind {
		case agent.KindProtocol:
			hint = fmt.Sprintf("The server%s answered, but not as an OpenAI-compatible Chat Completions API: check that base_url is that API (it usually ends in /v1); a proxy that breaks streaming works with stream = false.", where)
		case agent.KindAuth:
			hint = "Check the key and what it may use: quarry config shows where the key comes from."
		case agent.KindModel:
			hint = "Choose another model with --model; quarry doctor lists the names the server offers."
		case agent.KindContext, agent.KindRateLimit, agent.KindStepLimit, agent.KindSandbox, agent.KindConfirm, agent.KindHalted:
			hint = "" // the message says what to do
		}
	}
	if hint == "" {
		return "the run failed: " + msg
	}
	return "the run failed: " + msg + "\n" + hint
}

// ReadPrompt returns the prompt, reading it from stdin for "-".
func ReadPrompt(p string, stdin io.Reader) (string, error) {
	if p != "-" {
		if strings.TrimSpace(p) == "" {
			return "", errors.New("the prompt is empty: give a question with --prompt")
		}
		return p, nil
	}
	if stdin == nil {
		return "", errors.New("--prompt - reads the prompt from standard input, but there is none")
	}
	if f, ok := stdin.(*os.File); ok && isTerminalFile(f) {
		return "", errors.New("--prompt - reads the prompt from standard input, which is a terminal: pipe the prompt in, e.g. echo 'summarise' | quarry -p - data.csv")
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxPrompt+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %v", err)
	}
	if len(b) > maxPrompt {
		return "", fmt.Errorf("the prompt on standard input is over %d KiB: attach long text as a file instead", maxPrompt>>10)
	}
	p = strings.TrimSpace(string(b))
	if p == "" {
		return "", errors.New("the prompt read from standard input is empty: pipe a question in, e.g. echo 'summarise' | quarry -p - data.csv")
	}
	return p, nil
}

const maxPrompt = 256 << 10
