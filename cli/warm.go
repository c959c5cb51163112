package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/session"
)

// warmIdle is how long a holder started by a -p run keeps its sandboxes
// without a run taking one.
const warmIdle = "10m"

// takeWarm is a -p run's sandbox from the holder of its configuration's
// sandboxes, or nil (the run starts its own) after starting a holder for
// the next runs when none runs. flag is --warm, -1 when not given.
func takeWarm(ctx context.Context, cfg config.Config, flag int, events func(agent.Event)) *session.Pooled {
	n := cfg.Warm
	if flag >= 0 {
		n = flag
	}
	if n <= 0 {
		return nil
	}
	spec := session.SpecOf(cfg)
	w, err := session.TakeWarm(ctx, spec)
	if w != nil {
		return w.Pooled()
	}
	if errors.Is(err, session.ErrNoHolder) {
		err = startHolder(spec, n)
	}
	if err != nil && events != nil {
		events(agent.Event{Kind: agent.EventWarning, Text: err.Error() + "; this run starts its own sandbox"})
	}
	return nil
}

// startHolder starts quarry sandbox warm in a session of its own, so the
// run's end, its terminal's and its signals do not end it.
func startHolder(spec session.WarmSpec, n int) error {
	self, err := os.Executable()
	if err != nil {
		return errors.New("warm pool: " + err.Error())
	}
	b, _ := json.Marshal(spec)
	cmd := exec.Command(self, "sandbox", "warm", "--size", strconv.Itoa(n), "--idle", warmIdle, "--spec", string(b))
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return errors.New("warm pool: " + err.Error())
	}
	return cmd.Process.Release()
}
