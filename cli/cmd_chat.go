package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/demo"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
	"github.com/quarry-cli/quarry/ui"
)

// closeTimeout bounds removing the sandbox after the chat closes.
const closeTimeout = 20 * time.Second

// runChat is `quarry [FILE...]` in a terminal: the Bubble Tea chat. The
// sandbox starts in the background while the chat opens.
func (a *app) runChat(ctx context.Context, f *rootFlags) (err error) {
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		if f.demo != nil {
			return inputError{fmt.Errorf("the demo's chat needs a terminal; for pipes and scripts use quarry demo -p")}
		}
		return inputError{fmt.Errorf("the chat needs a terminal; for pipes and scripts use quarry -p PROMPT [FILE...]")}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inbox := ui.NewInbox()
	opts := launchOptions{events: inbox.Event, askChanged: true, build: a.build.Version, install: inbox.ConfirmInstall,
		reports: &session.ReportAhead{Warmup: export.Warmup()}} // /report after any answer
	if f.overrides.Confirm {
		// Each cell waits for the user's y, n or e in the chat.
		opts.agent = func(c *agent.Config) { c.Confirm = inbox.Confirm }
	}
	if f.demo != nil {
		f.demo.launchOptions(&opts)
		opts.reports.AtStart = true // the demo ends with its report
	}
	l, err := launch(ctx, f, opts)
	if err != nil {
		return err
	}
	// Whatever ends the chat (quit, hang-up, a panic), the sandbox goes.
	defer l.guard(&err, a.stderr, func() {
		cancel() // ends session calls still running in the chat's commands
		if line := closeChat(l.sess, a.stderr, closeTimeout); err == nil && line != "" {
			fmt.Fprintln(a.notes, line)
		}
	})
	uopts := ui.Options{
		Backend:    chatBackend{l.sess},
		Inbox:      inbox,
		Files:      l.files,
		Images:     l.cfg.Images,
		Theme:      l.cfg.Theme,
		Share:      l.cfg.Share,
		Thousands:  l.cfg.Thousands,
		OutputDir:  l.sess.OutputDir(),
		CheckFile:  l.sess.CheckNewFile, // the name too: a refusal before any upload starts
		SourceHint: source.Examples(),
	}
	for _, src := range l.sess.Sources() {
		uopts.Sources = append(uopts.Sources, ui.Source{Name: src.Name, Where: src.Where, Server: src.Server})
	}
	if l.notice != "" {
		uopts.Notices = append(uopts.Notices, l.notice)
	}
	uopts.Export = func(_ context.Context, path string) ([]string, error) { return exportChat(l.sess.OutputDir(), path) }
	uopts.Report = chatReport(l.sess)
	if l.resumed != nil {
		uopts.Resume = chatResume(l)
	}
	if f.notebook != nil {
		uopts.Resume = notebookResume(l.sess, f.notebook, f.missing)
	}
	if f.demo != nil {
		uopts.Backend = demoBackend{chatBackend{l.sess}, f.demo}
		uopts.Files = f.demo.opened(l.sess)
		uopts.Label, uopts.Ask, uopts.ReportAfterAsk = demo.Label, demo.Question, true
		uopts.FixedModel = demoModelNote(l.sess.ID())
		uopts.Notices = append(uopts.Notices, demoNotice)
	}
	// A closed terminal (SIGHUP) ends the chat like /quit, so the sandbox
	// is still removed; Bubble Tea itself handles SIGTERM.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		select {
		case <-hup:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := ui.Run(ctx, uopts); err != nil {
		return fmt.Errorf("%s", l.mask.MaskError(err.Error()))
	}
	return nil
}

// chatResume is what the chat needs to continue a saved session: its
// turns with their figures, the inputs to ask about and the restore.
func chatResume(l *launched) *ui.Resume {
	turns := session.PastTurns(l.resumed.Turns())
	session.ReadFigures(turns)
	r := &ui.Resume{ID: l.resumed.ID, Turns: turns}
	for _, c := range l.changed {
		r.Changed = append(r.Changed, ui.ChangedInput{Name: c.Name, Path: c.Path, Problem: c.Problem, Gone: c.Gone})
	}
	mapped := l.inputs
	inputs := l.resumed.Inputs()
	for _, in := range inputs {
		r.Inputs = append(r.Inputs, inputHost(in, mapped))
	}
	changed := map[string]bool{}
	for _, c := range l.changed {
		changed[c.Name] = true
	}
	r.Restore = func(ctx context.Context, chosen map[string]string) ([]ui.RestoredInput, error) {
		paths := map[string]string{}
		for k, v := range mapped {
			paths[k] = v
		}
		for k, v := range chosen {
			paths[k] = v
		}
		err := l.sess.Restore(ctx, paths)
		var out []ui.RestoredInput
		for _, p := range l.sess.Files() {
			for _, in := range inputs {
				if in.Name == p.Name {
					_, other := paths[in.Name]
					out = append(out, ui.RestoredInput{Path: inputHost(in, paths), Profile: p, Changed: other || changed[in.Name], Before: in.Profile})
				}
			}
		}
		return out, err
	}
	return r
}

// inputHost is the host file an input of a resumed session is read from:
// the one paths names for it, else where it was.
func inputHost(in session.Input, paths map[string]string) string {
	if p, ok := paths[in.Name]; ok {
		return p
	}
	if in.Path == "" {
		return in.Name
	}
	return in.Path
}

// exportChat is /export: PATH in the format its extension names, or with
// no PATH the three formats into the session folder. Nothing is replaced
// and no folder is made: the folder's names get a free suffix
// (analysis-2.ipynb…), a PATH that exists or whose folder does not is
// refused.
func exportChat(dir, path string) ([]string, error) {
	var f export.Format
	if path != "" {
		var ok bool
		if f, ok = export.FormatOf(path); !ok {
			return nil, fmt.Errorf("%s: name a .ipynb, .md or .html file", path)
		}
		if err := session.CheckNewOutput(path); err != nil {
			return nil, err
		}
	}
	rec, err := session.LoadRecord(dir)
	if err != nil {
		return nil, err
	}
	if path != "" {
		return export.Write(rec, f, path)
	}
	formats := []export.Format{export.Notebook, export.Markdown, export.HTML}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = export.DefaultName(f)
	}
	var all []string
	for i, name := range session.FreeNames(dir, names) {
		files, err := export.Write(rec, formats[i], filepath.Join(dir, name))
		if err != nil {
			return all, err
		}
		all = append(all, files...)
	}
	return all, nil
}

// closeChat removes the sandbox and returns the exit line naming the
// session's folder, or "" when closing removed it: a chat left before any
// question leaves no folder, and the line must not name one that is gone.
func closeChat(sess interface {
	Close() error
	OutputDir() string
}, stderr io.Writer, timeout time.Duration) string {
	closeSandbox(sess, stderr, timeout)
	if _, err := os.Stat(sess.OutputDir()); err != nil {
		return ""
	}
	return "quarry: figures and files of this session are in " + sess.OutputDir()
}

// closeSandbox removes the sandbox, at most timeout long. Ctrl+C, a hang-up
// or a TERM while it runs would otherwise kill quarry half-way and leave the
// container behind (the terminal is back in cooked mode by now).
func closeSandbox(sess interface{ Close() error }, stderr io.Writer, timeout time.Duration) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	fmt.Fprintln(stderr, "quarry: removing the sandbox…")
	done := make(chan error, 1)
	go func() { done <- sess.Close() }()
	deadline := time.After(timeout)
	for {
		select {
		case err := <-done:
			if err != nil {
				fmt.Fprintf(stderr, "quarry: removing the sandbox: %v\n", err)
			}
			return
		case <-sig:
			fmt.Fprintln(stderr, "quarry: still removing the sandbox, a moment…")
		case <-deadline:
			fmt.Fprintln(stderr, "quarry: the sandbox is still being removed; the next quarry run sweeps it")
			return
		}
	}
}

// chatBackend is the session as the chat sees it: the chat declares the
// undo report it shows and must not import session.
type chatBackend struct{ *session.Session }

func (b chatBackend) Undo(ctx context.Context) (ui.Undone, error) {
	u, err := b.Session.Undo(ctx)
	return ui.Undone{Question: u.Question, Removed: u.Removed, Changed: u.Changed, Replayed: u.Replayed, Warning: u.Warning}, err
}
