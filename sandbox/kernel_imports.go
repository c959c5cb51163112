package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ImportsEnv chooses when the kernel imports numpy, pandas, matplotlib and
// pyplot (pykernel/quarry_kernel/runtime/imports.py). Unset, it says ready first and
// imports them in a thread; a cell waits only for those it names.
// "wait" makes every cell and checkpoint wait for all of them, as quarry
// did before cells waited per name; "eager" imports them before ready, as
// quarry did before it deferred them. Both are the benchmarks' baselines,
// and ways to rule the background import out when chasing a fault.
const ImportsEnv = "QUARRY_KERNEL_IMPORTS"

// importsModes are ImportsEnv's values the kernel knows; any other is the
// default.
var importsModes = map[string]bool{"eager": true, "wait": true}

// importsDelay holds the background imports back before they begin, so
// tests can reach the kernel while they are pending (SetImportsDelay).
var importsDelay atomic.Int64

// importsTest are the tests' faults in the kernel's imports: modules whose
// import fails (SetImportsBroken), and modules that stay half made for a
// while, as a slow import does (SetImportsSlow).
var importsTest struct {
	sync.Mutex
	broken []string
	slow   map[string]float64 // module -> seconds
}

// importsPreamble is the kernel source's lines that choose the import order.
func importsPreamble() string {
	mode := os.Getenv(ImportsEnv)
	if !importsModes[mode] {
		mode = "names"
	}
	importsTest.Lock()
	// JSON lists of strings and objects of numbers are Python literals.
	broken, _ := json.Marshal(append([]string{}, importsTest.broken...))
	slow, _ := json.Marshal(importsTest.slow)
	importsTest.Unlock()
	if string(slow) == "null" {
		slow = []byte("{}")
	}
	eager := "False"
	if mode == "eager" {
		eager = "True"
	}
	return fmt.Sprintf("IMPORTS_MODE = %q\nEAGER_IMPORTS = %s\nIMPORTS_DELAY = %g\nIMPORTS_BROKEN = %s\nIMPORTS_SLOW = %s\n",
		mode, eager, time.Duration(importsDelay.Load()).Seconds(), broken, slow)
}

// opClock bounds a cell, a profile or a checkpoint. The kernel may first
// wait for its background imports, a part of its start bounded like one
// (readyTimeout); it sends a "running" frame as the operation begins, and
// the operation's own limit counts from there. Only the first such frame
// counts: it comes before any of the user's code runs, so a later one is
// forged.
type opClock struct {
	timer *time.Timer
	limit time.Duration
	begun bool
}

func newOpClock(limit time.Duration) *opClock {
	return &opClock{timer: time.NewTimer(readyTimeout), limit: limit}
}

// begin restarts the clock at the operation's limit, once.
func (c *opClock) begin() {
	if !c.begun {
		c.begun = true
		c.timer.Reset(c.limit)
	}
}

func (c *opClock) stop() { c.timer.Stop() }

type cellLimitKey struct{}

// WithCellLimit lowers the time limit of the cells run with ctx to d (an
// MCP client's timeout_s). Like the session's limit it counts from the
// moment the cell starts running, not while it waits for the kernel; a
// cell past it ends as a timeout, not as a cancelled call.
func WithCellLimit(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, cellLimitKey{}, d)
}

func cellLimit(ctx context.Context, limit time.Duration) time.Duration {
	if d, ok := ctx.Value(cellLimitKey{}).(time.Duration); ok && d > 0 && (limit <= 0 || d < limit) {
		return d
	}
	return limit
}
