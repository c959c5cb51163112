package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit statuses, the same for every command.
const (
	exitOK          = 0   // done; help asked for
	exitFailed      = 1   // the run failed: model, sandbox, a failed check
	exitUsage       = 2   // bad usage or input, found before anything starts
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// usageError is a mistake on the command line or in the inputs (exit 2):
// one line naming the command and the problem, then where help is.
type usageError struct {
	cmd string // "quarry", "quarry config", ...; the help hint names it
	err error
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usage error of command c.
func usagef(c *cobra.Command, format string, args ...any) error {
	return usageError{cmd: c.CommandPath(), err: fmt.Errorf(format, args...)}
}

// inputError is bad input found by the launch checks (a missing file, a
// bad setting): exit 2 like a usage error, but no help hint, since the
// message itself says what to do.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// interrupted is a run stopped by a signal (exit 130); msg says what was
// kept.
type interrupted struct{ msg string }

func (e interrupted) Error() string { return e.msg }

// runError is a failure (exit 1) that a launch step must not take for bad
// input.
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// silent is a failure already reported in full (doctor's failed checks):
// exit code only, nothing more printed.
type silent struct{ code int }

func (e silent) Error() string { return fmt.Sprintf("exit %d", e.code) }

func exitCode(err error) int {
	var (
		ue usageError
		ie inputError
		in interrupted
		s  silent
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &s):
		return s.code
	case errors.As(err, &in), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ue), errors.As(err, &ie):
		return exitUsage
	}
	return exitFailed
}

// noArgs refuses positional arguments, as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef(c, "unexpected argument %q", args[0])
	}
	return nil
}
