package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/quarry-cli/quarry/render"
)

// colorProfile is the colour profile for Bubble Tea's renderer: NO_COLOR
// keeps bold and reverse but drops colours.
func colorProfile(getenv func(string) string) colorprofile.Profile {
	switch {
	case getenv("TERM") == "dumb":
		return colorprofile.NoTTY
	case render.DetectColorDepth(getenv) == render.ColorNone:
		return colorprofile.Ascii
	case render.DetectColorDepth(getenv) == render.Color256:
		return colorprofile.ANSI256
	}
	return colorprofile.TrueColor
}

const frameRate = 30

// Run opens the chat and returns when the user quits. Extra options (a
// fixed window size, a colour profile, input and output) are for tests.
//
// A panic never escapes: Bubble Tea recovers those in Update, View and
// commands (restoring the terminal and printing the stack); the rest of Run
// recovers here. Either way the caller gets an error and can still remove
// the sandbox.
func Run(ctx context.Context, opts Options, teaOpts ...tea.ProgramOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report it): %v\n%s", r, debug.Stack())
		}
	}()
	m := New(ctx, opts)
	defer m.cancel()
	defer m.inbox.close()
	// Bubble Tea flushes on a frame ticker even when nothing changed; that
	// ticker is all an idle chat costs (measured: ~1.5% of a core at 60 fps),
	// so run it at 30 fps: still twice the streaming rate, half the wakeups.
	// The colour profile is the one quarry detected: left to itself, Bubble
	// Tea takes TERM=xterm for 16 colours.
	base := []tea.ProgramOption{tea.WithFPS(frameRate), tea.WithContext(ctx), tea.WithColorProfile(colorProfile(m.opts.Getenv))}
	if term.IsTerminal(os.Stdout.Fd()) {
		// Figures drawn outside the cell grid are painted by the output.
		m.overlay = newOverlay(os.Stdout)
		m.winsize = ttyCellSize(os.Stdout)
		base = append(base, tea.WithOutput(m.overlay))
	}
	teaOpts = append(base, teaOpts...)
	p := tea.NewProgram(m, teaOpts...)
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil // the caller ended the chat (a hang-up): not a terminal failure
	}
	// Free the kitty images this chat sent (quarry's own escapes).
	for _, id := range m.kittyIDs {
		fmt.Fprint(os.Stdout, render.KittyDelete(id))
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		return fmt.Errorf("internal error (please report it; the stack is printed above): %w", err)
	}
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	return nil
}
