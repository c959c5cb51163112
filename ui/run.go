package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/render"
)

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
	teaOpts = append([]tea.ProgramOption{tea.WithFPS(frameRate), tea.WithContext(ctx)}, teaOpts...)
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
