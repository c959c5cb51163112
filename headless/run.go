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
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// Exit statuses of a headless run (the contract of issue 5).
const (
	ExitOK          = 0   // answered
	ExitFailed      = 1   // the run failed: model unreachable, sandbox failure
	ExitUsage       = 2   // bad usage or input, found before any container or request
	ExitInterrupted = 130 // SIGINT or SIGTERM (the caller cancels ctx)
)

// Options are one headless run's inputs.
type Options struct {
	Prompt string   // "-" reads the prompt from Stdin
	Files  []string // host files to attach
	JSON   bool     // one JSON document on Stdout instead of Markdown
	Quiet  bool     // no progress on Stderr
	// OutputDir, when set (--output-dir), is used exactly as the session's
	// output folder; otherwise <Config.OutputDir>/<session id>.
	OutputDir string
	Config    config.Config
	Stdin     io.Reader // data piped here is attached when Prompt is text
	Stdout    io.Writer
	Stderr    io.Writer
	// Agent adjusts the agent configuration (tests: retry limits).
	Agent func(*agent.Config)
	// NoResolve skips config.Resolve (the API-key check and the Ollama
	// probe): the configuration is used as given.
	NoResolve bool
	// Getenv reads the environment for terminal styling; nil means os.Getenv.
	Getenv func(string) string
}

// Run answers one prompt and returns the exit status. Cancelling ctx (the
// caller does it on SIGINT/SIGTERM) interrupts the running cell, keeps what
// was harvested in the output folder and returns ExitInterrupted. The
// container is removed before Run returns, whatever happens.
func Run(ctx context.Context, o Options) (code int) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	// Deferred first so it runs last, after the session's Close: a bug
	// must not leave a container, print a Go trace or exit 2 (bad input).
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(o.Stderr, "quarry: internal error: %s\nThe sandbox was removed; please report this with the command you ran.\n",
				redact(render.SanitizeLine(fmt.Sprint(r)), o.Config.APIKey))
			code = ExitFailed
		}
	}()
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	prog := newProgress(o.Stderr, o.Quiet, isTerminal(o.Stderr))
	defer prog.Stop()
	fail := func(code int, format string, args ...any) int {
		prog.Stop()
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(o.Stderr, "quarry: %s\n", strings.TrimRight(msg, "\n"))
		return code
	}

	// Everything below up to session.Start is checked without Docker or a request.
	var prompt string
	err := untilDone(ctx, func() (err error) {
		prompt, err = readPrompt(o.Prompt, o.Stdin)
		return err
	})
	if ctx.Err() != nil {
		return fail(ExitInterrupted, "interrupted")
	}
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	files := append([]string(nil), o.Files...)
	if err := session.CheckFiles(files); err != nil {
		return fail(ExitUsage, "%v", err)
	}
	if o.OutputDir != "" {
		if err := session.CheckOutputDir(o.OutputDir); err != nil {
			return fail(ExitUsage, "%v", err)
		}
	} else if parent := o.Config.OutputDir; parent != "" {
		if err := session.CheckOutputParent(parent, o.Config.Source("output_dir")); err != nil {
			return fail(ExitUsage, "%v", err)
		}
	}
	if o.Prompt != "-" && hasPipedData(o.Stdin) {
		// Said first, so a script that hangs here shows why (quarry < /dev/null avoids it).
		prog.Phase("reading data from standard input (to attach none, run quarry with < /dev/null)")
		dir, err := os.MkdirTemp("", "quarry-stdin-")
		if err != nil {
			return fail(ExitFailed, "standard input: %v", err)
		}
		defer os.RemoveAll(dir)
		var path string
		err = untilDone(ctx, func() (err error) {
			path, err = saveStdin(dir, o.Stdin)
			return err
		})
		if ctx.Err() != nil {
			return fail(ExitInterrupted, "interrupted")
		}
		if err != nil {
			return fail(ExitUsage, "%v", err)
		}
		if path != "" {
			files = append(files, path)
			if err := session.CheckFiles(files); err != nil {
				return fail(ExitUsage, "%v", err)
			}
		}
	}

	if !o.NoResolve {
		cfg, notice, err := config.Resolve(ctx, o.Config)
		if err != nil && ctx.Err() != nil {
			return fail(ExitInterrupted, "interrupted")
		}
		if err != nil {
			return fail(ExitUsage, "%v", err)
		}
		o.Config = cfg
		if notice != "" {
			prog.Note(render.SanitizeLine(notice))
		}
	}
	s := session.New(session.Options{
		Config:    o.Config,
		OutputDir: o.OutputDir,
		Progress:  prog.LineWriter(),
		Agent:     o.Agent,
	})
	if err := s.Err(); err != nil {
		return fail(ExitUsage, "%v\nCheck the model settings: quarry config shows them.", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			fmt.Fprintf(o.Stderr, "quarry: warning: %s\n", render.SanitizeLine(err.Error()))
		}
	}()

	interrupted := func() int {
		if entries, err := os.ReadDir(s.OutputDir()); err == nil && len(entries) > 0 {
			return fail(ExitInterrupted, "interrupted; partial results are in %s", s.OutputDir())
		}
		return fail(ExitInterrupted, "interrupted")
	}
	if err := s.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return fail(ExitFailed, "the sandbox could not start: %s", render.Sanitize(err.Error()))
	}
	for _, f := range files {
		prog.Phase("attaching " + render.SanitizeLine(filepath.Base(f)))
		if _, err := s.Attach(ctx, f); err != nil {
			if ctx.Err() != nil {
				return interrupted()
			}
			return fail(ExitFailed, "%s", render.Sanitize(err.Error()))
		}
	}

	col := newCollector()
	prog.Phase("asking " + render.SanitizeLine(s.Model()))
	answer, err := s.Ask(ctx, prompt, func(e agent.Event) {
		col.Event(e)
		if ctx.Err() != nil && (e.Kind == agent.EventWarning || e.Kind == agent.EventError) {
			return // "cancelled": the interrupt message says it better
		}
		prog.Event(e)
	})
	if err == nil && ctx.Err() == nil {
		prog.Summary(col)
	}
	prog.Stop()
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return fail(ExitFailed, "%s\nThe files written so far are in %s.", runFailure(err, o.Config), s.OutputDir())
	}

	res := col.Finish(answer, s.Model(), s.ID(), s.OutputDir())
	if o.JSON {
		err = writeJSON(o.Stdout, res)
	} else {
		err = writeMarkdown(o.Stdout, res, markdownStyle(o))
	}
	if err != nil {
		return fail(ExitFailed, "writing the answer: %v", err)
	}
	return ExitOK
}

// redact hides the API key in text that may have quoted it.
func redact(s, key string) string {
	if len(key) < 4 { // a shorter "key" would hide ordinary words
		return s
	}
	return strings.ReplaceAll(s, key, "[hidden]")
}

// runFailure words a failed turn with what to do about it.
func runFailure(err error, c config.Config) string {
	msg := render.Sanitize(err.Error())
	if errors.Is(err, context.DeadlineExceeded) {
		return "the run took too long: " + msg
	}
	where := ""
	if c.BaseURL != "" && !strings.Contains(msg, c.BaseURL) {
		where = " at " + render.SanitizeLine(c.Endpoint()) // Endpoint hides a key in the URL
	}
	return fmt.Sprintf("the run failed: %s\nCheck that the model server%s is reachable and the key is valid, or choose another with --base-url / --model.", msg, where)
}

// readPrompt returns the prompt, reading it from stdin for "-".
func readPrompt(p string, stdin io.Reader) (string, error) {
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
		return "", fmt.Errorf("the prompt on standard input is over %d KB: attach long text as a file instead", maxPrompt>>10)
	}
	p = strings.TrimSpace(string(b))
	if p == "" {
		return "", errors.New("the prompt read from standard input is empty: pipe a question in, e.g. echo 'summarise' | quarry -p - data.csv")
	}
	return p, nil
}

const maxPrompt = 256 << 10
