package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/session"
)

type warmFlags struct {
	size int
	idle time.Duration
	stop bool
	spec string // a -p run's spec (cli/warm.go), in place of the config's
	cfg  string
	prof string
}

// sandboxWarmCmd is `quarry sandbox warm`: the holder of the sandboxes
// repeated -p runs take (session/warm.go).
func (a *app) sandboxWarmCmd() *cobra.Command {
	var f warmFlags
	c := &cobra.Command{
		Use:   "warm",
		Short: "Keep sandboxes started for the next quarry -p runs (a run with warm set starts this itself)",
		Long: `Keeps --size sandboxes started, each handed to one quarry -p run with warm set
(--warm N or the config's warm) and never to another; it starts the next at
once. It stops after --idle with no run taking or holding one, on Ctrl+C or
SIGTERM, or with --stop, and removes the sandboxes no run took; a run's
sandbox goes with the run (kill -9 included). A -p run with warm set and
no holder running starts one in the background.`,
		Example: `quarry sandbox warm --size 4 --idle 30m &
for q in q1 q2 q3; do quarry -p "variance report" --warm 4 $q.csv; done
quarry sandbox warm --stop`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if f.size < 1 || f.size > 32 {
				return usagef(c, "--size %d: give 1 up to 32", f.size)
			}
			if f.idle < time.Second {
				return usagef(c, "--idle %s: give at least 1s", f.idle)
			}
			return a.sandboxWarm(f)
		},
	}
	c.Flags().IntVar(&f.size, "size", 2, "sandboxes kept started")
	c.Flags().DurationVar(&f.idle, "idle", 10*time.Minute, "stop after this long with no run taking or holding a sandbox")
	c.Flags().BoolVar(&f.stop, "stop", false, "stop the holder of this configuration's sandboxes")
	c.Flags().StringVar(&f.spec, "spec", "", "")
	c.Flags().MarkHidden("spec")
	c.Flags().StringVar(&f.cfg, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	c.Flags().StringVar(&f.prof, "profile", "", "provider profile from the config file")
	return c
}

func (a *app) sandboxWarm(f warmFlags) error {
	var spec session.WarmSpec
	if f.spec != "" {
		if err := json.Unmarshal([]byte(f.spec), &spec); err != nil {
			return inputError{fmt.Errorf("--spec: %v", err)}
		}
	} else {
		cfg, err := config.Merge(config.Overrides{ConfigPath: f.cfg, Profile: f.prof})
		if err != nil {
			return inputError{err}
		}
		spec = session.SpecOf(cfg)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.stop {
		ran, err := session.StopWarm(ctx, spec)
		if err != nil {
			return err
		}
		if !ran {
			fmt.Fprintln(a.stderr, "quarry: no holder of sandboxes runs for this configuration")
		}
		return nil
	}
	say := func(s string) { fmt.Fprintln(a.stderr, "quarry: "+render.SanitizeLine(s)) }
	e, err := sandbox.Connect(ctx, say)
	if err != nil {
		return err
	}
	defer e.Close()
	err = session.ServeWarm(ctx, e, spec, f.size, f.idle, say, func(path string) {
		say(fmt.Sprintf("keeping %d sandboxes started for quarry -p runs with warm set, at %s; stops after %s without a run", f.size, path, f.idle))
	})
	if errors.Is(err, session.ErrHolderRuns) {
		say(err.Error())
		return nil
	}
	return err
}
