package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/headless"
)

// forceExitAfter bounds the clean-up after an interrupt: a hung engine must
// not keep the user waiting.
const forceExitAfter = 30 * time.Second

// runHeadless is `quarry --prompt`: the contract of issue 5. SIGINT and
// SIGTERM cancel the run (the cell is interrupted, the container removed,
// exit 130); a second signal exits at once and leaves the container to the
// next run's orphan sweep.
func runHeadless(f cliFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	if f.overrides.Confirm {
		fmt.Fprintln(stderr, "quarry: --confirm needs the chat to ask you about each cell; it does not go with --prompt")
		return exitUsage
	}
	cfg, err := config.Load(f.overrides)
	if err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitUsage
	}

	// A reader of stdout or stderr that went away (quarry -p ... | true)
	// must cost a failed write, not Go's default death by SIGPIPE, which
	// would skip removing the container.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	ctx, cancel := context.WithCancel(context.Background())
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
		fmt.Fprintln(stderr, "quarry: exiting now; the next quarry run removes a leftover container")
		os.Exit(exitInterrupted)
	}()

	code := headless.Run(ctx, headless.Options{
		Prompt:    f.prompt,
		Files:     f.files,
		JSON:      f.jsonOut,
		Quiet:     f.quiet,
		OutputDir: f.overrides.OutputDir,
		Config:    cfg,
		Stdin:     stdin,
		Stdout:    stdout,
		Stderr:    stderr,
	})
	return code
}
