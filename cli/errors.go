package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"charm.land/fang/v2"
	"charm.land/lipgloss/v2"

	"github.com/quarry-cli/quarry/render"
)

// printError is fang's error handler: one line naming the command and the
// problem, and for a usage mistake a second line saying where help is.
// w strips the styles when standard error is not a terminal. The message is
// sanitized (it may quote the model or the sandbox) and masked where it was
// made (the session's and doctor's own masking, or launch's).
func (a *app) printError(w io.Writer, st fang.Styles, err error) {
	var s silent
	if errors.As(err, &s) {
		return
	}
	cmd := "quarry"
	var ue usageError
	isUsage := errors.As(err, &ue)
	if isUsage {
		cmd = ue.cmd
	}
	head := lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	msg := strings.TrimRight(render.Sanitize(err.Error()), "\n")
	fmt.Fprintf(w, "%s %s\n", head.Render(cmd+":"), msg)
	if isUsage {
		fmt.Fprintf(w, "Run '%s' for usage.\n", st.Program.Flag.Render(cmd+" --help"))
	}
}
