package sandbox

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// ImportsEnv set to "eager" makes the kernel import numpy, pandas,
// matplotlib and pyplot before it says ready, as quarry did before it
// imported them in the background while the model thinks
// (sandbox/pykernel/imports.py). The benchmarks run it as their baseline; it is also
// a way to rule the background import out when chasing a fault.
const ImportsEnv = "QUARRY_KERNEL_IMPORTS"

// importsDelay holds the background imports back before they begin, so
// tests can reach the kernel while they are pending (SetImportsDelay).
var importsDelay atomic.Int64

// importsPreamble is the kernel source's lines that choose the import order.
func importsPreamble() string {
	eager := "False"
	if os.Getenv(ImportsEnv) == "eager" {
		eager = "True"
	}
	return fmt.Sprintf("EAGER_IMPORTS = %s\nIMPORTS_DELAY = %g\n", eager, time.Duration(importsDelay.Load()).Seconds())
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
