package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/ui"
)

// closeTimeout bounds removing the sandbox after the chat closes.
const closeTimeout = 20 * time.Second

// runChat is `quarry [FILE...]` in a terminal: the Bubble Tea chat. The
// sandbox starts in the background while the chat opens.
func runChat(f cliFlags, stderr io.Writer) int {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		fmt.Fprintln(stderr, "quarry: the chat needs a terminal; for pipes and scripts use quarry -p PROMPT [FILE...]")
		return exitUsage
	}
	cfg, err := config.Load(f.overrides)
	if err != nil {
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
	for _, p := range f.files {
		if err := session.CheckFile(p); err != nil {
			fmt.Fprintf(stderr, "quarry: %v\n", err)
			return exitUsage
		}
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
	runErr := ui.Run(ctx, opts)
	cancel()

	fmt.Fprintln(stderr, "quarry: removing the sandbox…")
	done := make(chan error, 1)
	go func() { done <- sess.Close() }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintf(stderr, "quarry: removing the sandbox: %v\n", err)
		}
	case <-time.After(closeTimeout):
		fmt.Fprintln(stderr, "quarry: the sandbox is still being removed; the next quarry run sweeps it")
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", runErr)
		return exitFailed
	}
	fmt.Fprintf(stderr, "quarry: figures and files of this session are in %s\n", sess.OutputDir())
	return exitOK
}
