package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/doctor"
	"github.com/quarry-cli/quarry/render"
)

// doctorCmd is `quarry doctor`: the checks of package doctor, printed one
// line each as they finish.
func (a *app) doctorCmd() *cobra.Command {
	var o config.Overrides
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the engine, the image, a sandbox and its limits, the model, the terminal",
		Long: `Checks the configuration, the engine (Docker or Podman), the sandbox image, a
sandbox and the limits that hold in it, the model endpoint and the terminal;
exits non-zero when a check fails (a limit the engine does not enforce is a
warning).`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return a.doctor(o) },
	}
	addConfigFlags(c.Flags(), &o)
	c.Flags().SortFlags = false
	return c
}

func (a *app) doctor(o config.Overrides) error {
	// Ctrl+C cancels the checks, so doctor's sandbox is removed; killed by
	// the default handler, it would be left behind.
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, doctor.Timeout)
	defer cancel()
	tty := isTerminal(a.stdout)
	p := checkPrinter{w: a.text, color: tty && os.Getenv("NO_COLOR") == ""}
	probe := func() render.Terminal {
		return doctor.ProbeTerminal(os.Stdin, os.Stdout, os.Getenv, 500*time.Millisecond)
	}
	err := doctor.Run(ctx, doctor.Options{Overrides: o, Terminal: tty, Probe: probe}, p.print)
	if sigCtx.Err() != nil {
		return interrupted{"doctor: interrupted"}
	}
	if err != nil {
		return err
	}
	if p.failed > 0 {
		fmt.Fprintf(a.text, "\n%d check(s) failed.\n", p.failed)
		return silent{code: exitFailed}
	}
	fmt.Fprintln(a.text, "\nAll checks passed.")
	return nil
}

// checkPrinter writes one line per check, coloured only on a terminal.
type checkPrinter struct {
	w      io.Writer
	color  bool
	failed int
}

func (p *checkPrinter) print(r doctor.Check) {
	mark, paint := "✓", "32"
	switch r.State {
	case doctor.Failed:
		mark, paint = "✗", "31"
		p.failed++
	case doctor.Skipped:
		mark, paint = "–", "2"
	case doctor.Warning:
		mark, paint = "!", "33"
	}
	if p.color {
		mark = "\x1b[" + paint + "m" + mark + "\x1b[0m"
	}
	lines := strings.Split(strings.TrimSpace(render.Sanitize(r.Detail)), "\n")
	if r.State == doctor.Skipped {
		lines[0] = "skipped: " + lines[0]
	}
	fmt.Fprintf(p.w, "%s %s: %s\n", mark, r.Name, lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(p.w, "    %s\n", strings.TrimRight(l, " "))
	}
	if (r.State == doctor.Failed || r.State == doctor.Warning) && r.Fix != "" && !strings.Contains(r.Detail, "fix:") {
		fmt.Fprintf(p.w, "    fix: %s\n", render.SanitizeLine(r.Fix))
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
