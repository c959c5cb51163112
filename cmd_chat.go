package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/ui"
)

// closeTimeout bounds removing the sandbox after the chat closes.
const closeTimeout = 20 * time.Second

// runChat is `quarry [FILE...]` in a terminal: the Bubble Tea chat. The
// sandbox starts in the background while the chat opens.
func runChat(f cliFlags, stderr io.Writer) (code int) {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		fmt.Fprintln(stderr, "quarry: the chat needs a terminal; for pipes and scripts use quarry -p PROMPT [FILE...]")
		return exitUsage
	}
	cfg, err := config.Load(f.overrides)
	if err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitUsage
	}
	// Inputs first: nothing is probed or started for a run that cannot go on.
	if err := checkChatInputs(f, cfg); err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, notice, err := config.Resolve(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitUsage
	}

	inbox := ui.NewInbox()
	sopts := session.Options{
		Config:    cfg,
		OutputDir: f.overrides.OutputDir,
		Progress:  inbox.Progress(),
	}
	if cfg.Confirm {
		// Each cell waits for the user's y, n or e in the chat.
		sopts.Agent = func(c *agent.Config) { c.Confirm = inbox.Confirm }
	}
	sess := session.New(sopts)
	// Whatever ends the chat (quit, hang-up, a panic), the sandbox goes.
	defer func() {
		if r := recover(); r != nil {
			// The value may carry model or sandbox text: sanitized, key hidden.
			msg := render.SanitizeLine(fmt.Sprint(r))
			if cfg.APIKey != "" {
				msg = strings.ReplaceAll(msg, cfg.APIKey, "[key hidden]")
			}
			fmt.Fprintf(stderr, "quarry: internal error (please report it): %s\n", msg)
			code = exitFailed
		}
		cancel() // ends session calls still running in the chat's commands
		closeSandbox(sess, stderr, closeTimeout)
		if code == exitOK {
			fmt.Fprintf(stderr, "quarry: figures and files of this session are in %s\n", sess.OutputDir())
		}
	}()
	opts := ui.Options{
		Backend:   sess,
		Inbox:     inbox,
		Files:     f.files,
		Images:    cfg.Images,
		Theme:     cfg.Theme,
		CheckFile: session.CheckFile,
	}
	if notice != "" {
		opts.Notices = append(opts.Notices, notice)
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
	if err := ui.Run(ctx, opts); err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitFailed
	}
	return exitOK
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

// checkChatInputs checks the launch files and the output folder before any
// probe or container, like the headless mode does.
func checkChatInputs(f cliFlags, cfg config.Config) error {
	if err := session.CheckFiles(f.files); err != nil {
		return err
	}
	if f.overrides.OutputDir != "" {
		return session.CheckOutputDir(f.overrides.OutputDir)
	}
	if cfg.OutputDir != "" {
		return session.CheckOutputParent(cfg.OutputDir, cfg.Source("output_dir"))
	}
	return nil
}
