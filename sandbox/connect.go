package sandbox

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/engine"
)

// Connect reaches the engine as engine.Connect does and then sweeps it
// (SweepAndTell): every command that talks to the engine starts so, and
// what a quarry killed with -9 left goes at the next start of any of them.
func Connect(ctx context.Context, say func(string)) (*engine.Engine, error) {
	e, err := engine.Connect(ctx)
	if err != nil {
		return nil, err
	}
	SweepAndTell(ctx, e, say)
	return e, nil
}

// sweepTimeout bounds the sweep at a start: it must not hold a command up.
const sweepTimeout = 20 * time.Second

// SweepAndTell removes what dead quarry processes left (Sweep) and, when
// it removed anything, says so to say in one line. A sweep that fails is
// not the command's failure: the next start tries again.
func SweepAndTell(ctx context.Context, e *engine.Engine, say func(string)) {
	ctx, cancel := context.WithTimeout(ctx, sweepTimeout)
	defer cancel()
	n, owners, _ := sweep(ctx, e)
	if n > 0 && say != nil {
		say(sweepLine(n, owners))
	}
}

// sweepLine words a sweep: "removed 3 engine objects left by earlier runs
// (quarry pid 4242, which ended without removing them)".
func sweepLine(n int, owners []string) string {
	what := "objects"
	if n == 1 {
		what = "object"
	}
	who, which := "pid", "which"
	if len(owners) > 1 {
		who = "pids"
		which = "which all"
	}
	if len(owners) > 3 {
		owners = append(owners[:3:3], fmt.Sprintf("%d more", len(owners)-3))
	}
	return fmt.Sprintf("removed %d engine %s left by earlier runs (quarry %s %s, %s ended without removing them)",
		n, what, who, strings.Join(owners, ", "), which)
}
